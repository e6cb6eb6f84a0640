"""Frame builders for chapter 2, "The walkthrough" (deck ``attention-walkthrough``).

Nine sections, from how a word becomes numbers to what attention costs. Inputs are designed (see
``attention_talk.walkthrough_inputs``); every number drawn is computed from them by the engine, and
widgets (bars, cards, the token picker, the n² slider, FlashAttention tiles…) receive only numbers
computed here. Layout is in stage units (1600 × 900): title above y ≈ 100, caption bar below 780.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from attention_talk.engine import (
    attend,
    causal_mask,
    costs,
    decode,
    flash_attend,
    multi_head,
    padding_mask,
    scores,
    softmax,
)
from attention_talk.engine.costs import fmt as fmt_count
from attention_talk.frames.context import BuildContext
from attention_talk.frames.kit.derivations import (
    derive_copy,
    derive_output,
    derive_projection,
    derive_scores,
    derive_weights,
)
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.model import Box, Counter, FrameBody, Highlight, Note, Tensor, Widget
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.walkthrough_inputs import (
    FEATURES,
    MH_TOKENS,
    MH_X,
    POSITION_STRENGTH,
    SENTENCE_MONEY,
    SENTENCE_RIVER,
    SOURCE,
    TARGET,
    VOCAB,
    W_K,
    W_O,
    W_Q,
    W_V,
    Sentence,
    embedding_table,
    sentence,
    seq2seq,
)

TOP, BOTTOM, LEFT, RIGHT = 120, 760, 60, 1540
FEATS = list(FEATURES)


class _P(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _f(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


def _vec(v: np.ndarray, digits: int = 2) -> str:
    return "[" + ", ".join(_f(float(x), digits) for x in v) + "]"


def _shape(*dims: int) -> str:
    return " × ".join(f"{d:,}" for d in dims)


def box(x: float, y: float, w: float, h: float) -> Box:
    return Box(x=x, y=y, w=w, h=h)


def cards(wid: str, b: Box, items: list[dict], *, columns: int = 3, arrows: bool = False,
          active: int | None = None, kind: str = "neutral") -> Widget:
    """A row (or grid) of text cards: {title, body, tag?, kind?}."""
    return Widget(id=wid, type="cards", box=b, kind=kind,
                  data={"cards": items, "columns": columns, "arrows": arrows, "active": active})


def bars(wid: str, b: Box, title: str, labels: list[str], values: np.ndarray, *, kind: str = "weights",
         digits: int = 3, highlight: int | None = None, show_sum: bool = True,
         value_labels: list[str] | None = None) -> Widget:
    values = np.asarray(values, dtype=np.float64)
    return Widget(id=wid, type="weight-bars", box=b, kind=kind, data={
        "title": title, "labels": labels, "values": [float(v) for v in values], "digits": digits,
        "highlight": highlight, "sum": float(values.sum()) if show_sum else None,
        "value_labels": value_labels})


def _ctx_sentences(ctx: BuildContext) -> tuple[Sentence, Sentence]:
    if "walk" not in ctx._cache:
        seed = ctx.deck.story.seed
        ctx._cache["walk"] = (sentence(SENTENCE_RIVER, seed), sentence(SENTENCE_MONEY, seed))
    return ctx._cache["walk"]


# ---- 1 · from a word to a row of numbers ---------------------------------------------------------
class WordParams(_P):
    stage: Literal["chain", "table", "lookup", "positions", "weights", "context", "mechanism"]


@CHAPTER.builder("walk.word", WordParams)
def word(ctx: BuildContext, p: WordParams) -> FrameBody:
    """Text → tokens → ids → embedding rows; positions; the bank row before and after attention."""
    river, money = _ctx_sentences(ctx)
    table = embedding_table(ctx.deck.story.seed)
    bank_id = VOCAB.index("bank")
    b = river.index("bank")
    body = FrameBody()
    if p.stage == "chain":
        ids = ", ".join(str(i) for i in river.ids)
        body.widgets.append(cards("chain", box(LEFT, 150, 1480, 330), [
            {"title": "text", "body": SENTENCE_RIVER, "kind": "input"},
            {"title": "tokens", "body": " | ".join(river.tokens),
             "tag": "here one token = one word"},
            {"title": "token ids", "body": ids, "tag": f"index in a {len(VOCAB)}-word vocabulary"},
            {"title": "lookup", "body": f"E[{bank_id}] = {_vec(table[bank_id])}", "kind": "input",
             "tag": "the row of “bank”"},
        ], columns=4, arrows=True))
        body.notes.append(Note(id="honest", box=box(LEFT, 520, 1480, 150), text=(
            f"Our toy tokenizer splits on spaces and numbers {len(VOCAB)} words in order. Real "
            f"tokenizers cut text into sub-word pieces from vocabularies of tens of thousands "
            f"(DeepSeek-V3.2: {129_280:,}). An id is a row number, not a quantity.")))
    elif p.stage == "table":
        et = tensor("E", "embedding table E", "input", table, box(LEFT, 110, 620, 660),
                    rows=list(VOCAB), cols=FEATS, max_rows=20, max_cols=4, highlight=Highlight(rows=[bank_id]))
        body.tensors.append(derive_copy(et, lambda r, c: (
            "a parameter: learned in a real model; here a designed feature plus seeded noise",
            float(table[r, c])), formula="parameter", title=lambda r, c: f"E[{r}] (“{VOCAB[r]}”), {FEATS[c]}"))
        body.notes.append(Note(id="row", box=box(740, 160, 780, 300), kind="input", text=(
            f"One learned row per vocabulary entry: {len(VOCAB)} × {table.shape[1]} here. "
            f"Real tables are far wider: DeepSeek-V3.2 has {129_280:,} rows of {7168:,} numbers. "
            f"Our four columns have names only because we designed them; learned columns "
            f"have none.")))
    elif p.stage == "lookup":
        for i, (s, x) in enumerate(((river, LEFT), (money, 820))):
            t = tensor(f"look{i}", f"E[ids] · “{' '.join(s.tokens)}”", "input", s.lookup,
                       box(x, 120, 720, 450), rows=list(s.tokens), cols=FEATS, max_cols=4,
                       highlight=Highlight(rows=[s.index("bank")]))
            derive_copy(t, lambda r, c, s=s: (f"row {s.ids[r]} (“{s.tokens[r]}”) of E, column "
                                              f"{c + 1}", float(s.lookup[r, c])),
                        formula="E[id]", title=lambda r, c, s=s: f"lookup: E[{s.ids[r]}], {FEATS[c]}")
            body.tensors.append(t)
        same = bool(np.array_equal(river.lookup[b], money.lookup[money.index("bank")]))
        body.notes.append(Note(id="same", box=box(LEFT, 600, 1480, 110), kind="input", text=(
            f"Both “bank” rows are E[{bank_id}] = {_vec(river.lookup[b])}: "
            f"{'identical' if same else 'different'}. The lookup cannot know which bank is meant.")))
    elif p.stage == "positions":
        d = river.positions.shape[1]
        pt = tensor("P", f"positions: {d}-wide sinusoids × {POSITION_STRENGTH}", "neutral", river.positions,
                    box(LEFT, 130, 700, 400), rows=[f"{i + 1}" for i in range(len(river.tokens))], cols=FEATS)
        body.tensors.append(derive_copy(pt, lambda r, c: (
            f"{POSITION_STRENGTH} × {'sin' if c % 2 == 0 else 'cos'}({r} / 10000^({2 * (c // 2)}/{d}))",
            float(river.positions[r, c])), formula=f"{POSITION_STRENGTH} · PE",
            title=lambda r, c: f"position {r + 1}, column {c + 1}"))
        xt = tensor("X", "X = E[ids] + P", "input", river.x, box(800, 130, 740, 400),
                    rows=list(river.tokens), cols=FEATS, highlight=Highlight(rows=[b]))
        derive_copy(xt, lambda r, c: (f"E[{river.ids[r]}] = {_f(river.lookup[r, c])} plus position "
                                      f"{r + 1}: {_f(river.positions[r, c])}", float(river.x[r, c])),
                    formula="E[ids] + P", title=lambda r, c: f"x({river.tokens[r]}), {FEATS[c]}")
        body.tensors.append(xt)
        body.notes.append(Note(id="why", box=box(LEFT, 560, 1480, 130), text=(
            "Attention on its own ignores order: shuffle the tokens and each one gets the same "
            "mix. Adding a position signal to each row lets “river bank” differ from “bank river”.")))
    elif p.stage == "weights":
        w = river.attention.weights[b]
        body.widgets.append(bars("bankrow", box(LEFT, 130, 900, 600),
                                 f"attention weights of “bank” · shape 1 × {len(w)}",
                                 list(river.tokens), w, highlight=int(np.argsort(w)[-2])))
        top = [river.tokens[i] for i in np.argsort(w)[::-1][:3]]
        body.notes.append(Note(id="read", box=box(1000, 160, 540, 330), kind="weights", text=(
            f"One coefficient per token of the sentence, from softmax, so they add up to "
            f"{w.sum():.3f}. The largest go to “{top[0]}”, “{top[1]}” and “{top[2]}”.")))
    elif p.stage == "context":
        for i, (s, y) in enumerate(((river, 140), (money, 440))):
            k = s.index("bank")
            t = tensor(f"ctx{i}", f"“bank” in “{' '.join(s.tokens)}”", "output",
                       np.vstack([s.x[k], s.contextual[k]]), box(LEFT, y, 820, 230),
                       rows=["input x", "x + update"], cols=FEATS)
            upd = s.update[k]
            derive_copy(t, lambda r, c, s=s, k=k, upd=upd: (
                (f"input row of “bank”, {FEATS[c]}", float(s.x[k, c])) if r == 0 else
                (f"input {_f(s.x[k, c])} + attention update {_f(upd[c])} (residual path)",
                 float(s.contextual[k, c]))), formula="x + A·V·W_O",
                title=lambda r, c: f"“bank”, {FEATS[c]}")
            body.tensors.append(t)
        rw, rm = river.contextual[b], money.contextual[money.index("bank")]
        body.notes.append(Note(id="diff", box=box(940, 200, 600, 330), kind="output", text=(
            f"Same start, different result. After attention, “bank” by the river has water "
            f"{_f(rw[0], 2)} vs money {_f(rw[1], 2)}; at the cash desk, water {_f(rm[0], 2)} vs "
            f"money {_f(rm[1], 2)}.")))
    else:  # mechanism
        body.widgets.append(cards("mech", box(LEFT, 170, 1480, 380), [
            {"title": "1 · match", "body": "the position being updated is compared with every "
                                           "other position", "kind": "query"},
            {"title": "2 · weigh and mix", "body": "the matches become weights that sum to one; "
                                                   "the value rows are averaged with them",
             "kind": "weights"},
            {"title": "3 · new row", "body": "the result is a row that now depends on the context",
             "kind": "output"},
        ], columns=3, arrows=True))
    return body


# ---- 2 · before attention ------------------------------------------------------------------------
class RnnParams(_P):
    stage: Literal["encoder", "bottleneck", "attention", "context", "transformer"]


@CHAPTER.builder("walk.rnn", RnnParams)
def rnn(ctx: BuildContext, p: RnnParams) -> FrameBody:
    """An RNN encoder's states, the single-vector bottleneck, then attention over every state."""
    s2s = seq2seq(ctx.deck.story.seed)
    states = [f"h{'₁₂₃₄'[i]}" for i in range(len(SOURCE))]
    w = s2s.attention.weights[0]
    body = FrameBody()
    mode = {"encoder": "encoder", "bottleneck": "bottleneck"}.get(p.stage, "attention")
    if p.stage != "transformer":
        body.widgets.append(Widget(id="rnn", type="rnn", box=box(LEFT, 115, 1480, 300), data={
            "source": list(SOURCE), "states": states, "target": list(TARGET), "mode": mode,
            "weights": [float(x) for x in w] if mode == "attention" else None,
            "focus": len(TARGET) - 1}))
    if p.stage == "encoder":
        t = tensor("H", "encoder states H (one row per hᵢ)", "key", s2s.h, box(LEFT, 440, 700, 300),
                   rows=states, cols=[str(i + 1) for i in range(4)])
        body.tensors.append(derive_copy(t, lambda r, c: (
            f"tanh(Wₓ x({SOURCE[r]}) + Wₕ h{'₀₁₂₃'[r]}), coordinate {c + 1}: the recurrence", float(s2s.h[r, c])),
            formula="tanh(Wₓ xₜ + Wₕ hₜ₋₁)", title=lambda r, c: f"{states[r]}, coordinate {c + 1}"))
        body.notes.append(Note(id="rec", box=box(800, 450, 740, 250), kind="key", text=(
            "hₜ = tanh(Wₓ xₜ + Wₕ hₜ₋₁): each state mixes the new word into the previous "
            f"state. Every hᵢ has the same width ({s2s.h.shape[1]} here, often 512), however "
            "long the sentence.")))
    elif p.stage == "bottleneck":
        body.notes.append(Note(id="neck", box=box(LEFT, 450, 1480, 200), kind="mask", text=(
            f"The decoder sees only c = h₄ = {_vec(s2s.h[-1])}. Who chased, what was chased and "
            f"in which order must all survive inside those {s2s.h.shape[1]} numbers, and h₁, h₂, "
            "h₃ cannot be consulted again.")))
    elif p.stage == "attention":
        body.widgets.append(bars("alpha", box(LEFT, 440, 880, 310),
                                 f"αᵢⱼ for the output word “{TARGET[-1]}”", states, w,
                                 highlight=int(np.argmax(w))))
        body.notes.append(Note(id="alpha", box=box(990, 450, 550, 280), kind="weights", text=(
            f"Computed from the decoder state and each hⱼ, then softmax. The largest weight "
            f"({_f(w.max(), 2)}) is on {states[int(np.argmax(w))]}, the state of "
            f"“{SOURCE[int(np.argmax(w))]}”; the others still contribute.")))
    elif p.stage == "context":
        mix = " + ".join(f"{_f(x, 2)}·{s}" for x, s in zip(w, states, strict=True))
        t = tensor("c", f"c = {mix}", "output", s2s.attention.output, box(LEFT, 450, 900, 170),
                   rows=["c"], cols=[str(i + 1) for i in range(4)], digits=3)
        derive_output(t, s2s.attention.weights, s2s.h, row_names=["c"], key_names=states, v_name="h")
        body.tensors.append(t)
        body.notes.append(Note(id="fresh", box=box(1000, 450, 540, 260), kind="output", text=(
            "A fresh context vector for every output step: the weights change with the decoder "
            "state, the encoder states stay available. Click a number to see its sum.")))
    else:
        body.widgets.append(cards("hist", box(LEFT, 150, 1480, 420), [
            {"title": "2014–2015", "body": "attention bolted onto recurrent (RNN, LSTM) encoders: the "
                                           "decoder reads every encoder state", "kind": "key"},
            {"title": "2017", "body": "the Transformer drops recurrence from sequence mixing: "
                                      "self-attention links every position to every allowed "
                                      "position directly", "kind": "query"},
        ], columns=2, arrows=True))
    return body


# ---- 3 · queries, keys and values ----------------------------------------------------------------
class QkvParams(_P):
    stage: Literal["query", "key", "value", "matrices"]


QKV_CARDS = [
    {"title": "Q · query", "tag": "the request", "kind": "query",
     "body": "what the token being updated is looking for: “which words clarify me?”"},
    {"title": "K · key", "tag": "the match signal", "kind": "key",
     "body": "what each position offers to be matched; q · k gives one score per position"},
    {"title": "V · value", "tag": "the payload", "kind": "value",
     "body": "what each position hands over; the weights average these rows"},
]


@CHAPTER.builder("walk.qkv", QkvParams)
def qkv(ctx: BuildContext, p: QkvParams) -> FrameBody:
    """The three jobs, then the three matrices of the river sentence."""
    river, _ = _ctx_sentences(ctx)
    body = FrameBody()
    if p.stage != "matrices":
        n = ["query", "key", "value"].index(p.stage) + 1
        body.widgets.append(cards("qkv", box(LEFT, 150, 1480, 420), QKV_CARDS[:n], columns=3,
                                  active=n - 1))
        return body
    toks = list(river.tokens)
    cols = ["1", "2", "3"]
    for i, (name, arr, w, kind) in enumerate((("Q", river.q, W_Q, "query"), ("K", river.k, W_K, "key"),
                                              ("V", river.v, W_V, "value"))):
        t = tensor(name, f"{name} = X·W_{name}", kind, arr, box(LEFT + i * 500, 130, 470, 420),
                   rows=toks, cols=cols)
        body.tensors.append(derive_projection(t, river.x, w, x_name="x", w_name=f"W_{name}",
                                              row_names=toks))
    body.notes.append(Note(id="learned", box=box(LEFT, 580, 1480, 120), text=(
        f"Three different {_shape(*W_Q.shape)} matrices turn the same rows X into three views. "
        "In a real model these matrices are learned; the columns have no human names.")))
    return body


# ---- 4 · the equation with shapes ----------------------------------------------------------------
class EquationParams(_P):
    stage: Literal["steps", "formula", "raw", "scaled", "params"]
    equation: str | None = None


def _score_samples(seed: int, d_k: int = 128, n: int = 64):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))  # (n, d_k)  unit-variance components
    k = rng.standard_normal((n, d_k))  # (n, d_k)
    raw = scores(q, k)  # (n, n)
    return raw, raw / np.sqrt(d_k), d_k


def _hist(values: np.ndarray, lo: float, hi: float, bins: int = 24) -> dict:
    counts, edges = np.histogram(values.ravel(), bins=bins, range=(lo, hi))
    return {"edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}


@CHAPTER.builder("walk.equation", EquationParams)
def equation(ctx: BuildContext, p: EquationParams) -> FrameBody:
    """The four steps with shapes, the full formula, why √d_k, parameters vs activations."""
    river, _ = _ctx_sentences(ctx)
    n, d_k = river.q.shape
    body = FrameBody()
    if p.stage in ("steps", "formula"):
        steps = [
            {"title": "1 · scores = Q·Kᵀ", "body": f"({n} × {d_k}) · ({d_k} × {n}) = {n} × {n}",
             "kind": "scores"},
            {"title": "2 · scaled = scores / √d_k", "body": f"still {n} × {n}", "kind": "scores"},
            {"title": "3 · masked = scaled + M", "body": f"M is {n} × {n}: 0 keeps, −∞ blocks",
             "kind": "mask"},
            {"title": "4 · weights = softmax(rows)", "body": f"{n} × {n}, each row sums to 1",
             "kind": "weights"},
        ]
        body.widgets.append(cards("four", box(LEFT, 120, 1480, 250), steps, columns=4, arrows=True))
        if p.stage == "formula":
            body.widgets.append(Widget(id="eq", type="equation", box=box(LEFT, 400, 1480, 130),
                                       data={"name": p.equation or "attention"}))
            body.widgets.append(cards("legend", box(LEFT, 550, 1480, 200), [
                {"title": f"Q · {n} × {d_k}", "body": "queries × key width", "kind": "query"},
                {"title": f"K · {n} × {d_k}", "body": "keys × key width", "kind": "key"},
                {"title": f"V · {n} × {river.v.shape[1]}", "body": "values × value width",
                 "kind": "value"},
                {"title": f"A · {n} × {n}", "body": "queries × keys", "kind": "weights"},
            ], columns=4))
    elif p.stage in ("raw", "scaled"):
        raw, scaled, dk = _score_samples(ctx.deck.story.seed)
        lim = float(np.ceil(np.abs(raw).max()))
        series = [{"label": f"raw q·k, d_k = {dk}", "kind": "scores", **_hist(raw, -lim, lim),
                   "stat": f"variance {raw.var():.1f}"}]
        if p.stage == "scaled":
            slim = lim / np.sqrt(dk)
            series.append({"label": f"scaled q·k / √{dk}", "kind": "weights",
                           **_hist(scaled, -slim, slim), "stat": f"variance {scaled.var():.2f}"})
        body.widgets.append(Widget(id="hist", type="histogram", box=box(LEFT, 130, 1000, 600),
                                   data={"series": series,
                                         "caption": f"{raw.size:,} dot products of random unit-"
                                                    f"variance vectors, {dk} components each"}))
        top_raw = float(np.mean(np.max(softmax(raw), axis=1)))  # mean largest weight per row
        top_scaled = float(np.mean(np.max(softmax(scaled), axis=1)))
        text = (f"Each score adds {dk} products, so its variance grows like d_k "
                f"({raw.var():.0f} here). Softmax of such rows is nearly one-hot: the top weight "
                f"averages {top_raw:.2f}.")
        if p.stage == "scaled":
            text = (f"Dividing by √{dk} brings the variance back to {scaled.var():.2f}. The top weight "
                    f"now averages {top_scaled:.2f}: softmax stays soft and its gradients stay useful.")
        body.notes.append(Note(id="why", box=box(1100, 150, 440, 420), kind="scores", text=text))
    else:
        c = costs(ctx.deck.preset)
        wq = c.weights_per_matrix("W_Q")
        body.widgets.append(cards("pa", box(LEFT, 150, 1480, 440), [
            {"title": "parameters · learned, kept", "kind": "weight",
             "body": f"E, W_Q, W_K, W_V, W_O: set by gradient descent, reused for every input. "
                     f"At DeepSeek-V3.2 size W_Q alone is {fmt_count(wq.value)} weights "
                     f"({wq.formula.split(' = ')[1]})."},
            {"title": "activations · computed, thrown away", "kind": "output",
             "body": f"Q, K, V, scores, weights, outputs: recomputed for each input. For our "
                     f"sentence: {n} × {d_k} queries and a {n} × {n} map; another sentence, other "
                     f"numbers."},
        ], columns=2, arrows=True))
        body.counters.append(_counter("wq", wq))
    return body


def _counter(cid: str, count, label: str | None = None) -> Counter:
    return Counter(id=cid, label=label or count.label, value=float(count.value), formula=count.formula,
                   source=count.source, unit=count.unit)


# ---- 5 · the nine-stage pipeline -------------------------------------------------------------------
class PipelineParams(_P):
    stage: int = Field(ge=1, le=9)


@CHAPTER.builder("walk.pipeline", PipelineParams)
def pipeline(ctx: BuildContext, p: PipelineParams) -> FrameBody:
    """Nine stacked stages with their shapes; the active one is drawn with its numbers."""
    s = sentence(SENTENCE_RIVER, ctx.deck.story.seed, causal=True)
    a = s.attention
    n, d = s.x.shape
    d_k, d_v = W_Q.shape[1], W_V.shape[1]
    out = a.output @ W_O  # (n, d)
    stages = [
        ("Q = X·W_Q", f"({n}×{d})·({d}×{d_k})", _shape(n, d_k)),
        ("K = X·W_K", f"({n}×{d})·({d}×{d_k})", _shape(n, d_k)),
        ("V = X·W_V", f"({n}×{d})·({d}×{d_v})", _shape(n, d_v)),
        ("S = Q·Kᵀ", f"({n}×{d_k})·({d_k}×{n})", _shape(n, n)),
        ("S / √d_k", f"× 1/√{d_k}", _shape(n, n)),
        ("S + M (causal)", "0 or −∞", _shape(n, n)),
        ("A = softmax(rows)", "each row sums to 1", _shape(n, n)),
        ("Z = A·V", f"({n}×{n})·({n}×{d_v})", _shape(n, d_v)),
        ("Y = Z·W_O", f"({n}×{d_v})·({d_v}×{d})", _shape(n, d)),
    ]
    body = FrameBody()
    body.widgets.append(Widget(id="pipe", type="pipeline", box=box(LEFT, 110, 600, 660), data={
        "stages": [{"title": t, "formula": f, "shape": sh} for t, f, sh in stages],
        "active": p.stage - 1}))
    toks = list(s.tokens)
    tb = box(720, 130, 820, 520)
    i = p.stage
    if i <= 3:
        name, arr, w, kind = [("Q", s.q, W_Q, "query"), ("K", s.k, W_K, "key"), ("V", s.v, W_V, "value")][i - 1]
        t = tensor(name, stages[i - 1][0], kind, arr, tb, rows=toks, cols=["1", "2", "3"])
        derive_projection(t, s.x, w, x_name="x", w_name=f"W_{name}", row_names=toks)
    elif i == 4:
        t = derive_scores(tensor("S", "S = Q·Kᵀ", "scores", a.scores, tb, rows=toks, cols=toks),
                          a.q, a.k, row_names=toks, col_names=toks)
    elif i == 5:
        t = derive_scores(tensor("S", "S / √d_k", "scores", a.scaled, tb, rows=toks, cols=toks),
                          a.q, a.k, row_names=toks, col_names=toks, scale=a.scale)
    elif i == 6:
        t = derive_scores(tensor("S", "S / √d_k + M", "mask", a.masked, tb, rows=toks, cols=toks),
                          a.q, a.k, row_names=toks, col_names=toks, scale=a.scale, mask=a.mask)
    elif i == 7:
        t = derive_weights(tensor("S", "A = softmax(rows)", "weights", a.weights, tb, rows=toks, cols=toks,
                                  heat=True), a.masked, row_names=toks, col_names=toks)
    elif i == 8:
        t = derive_output(tensor("Z", "Z = A·V", "output", a.output, tb, rows=toks, cols=["1", "2", "3"]),
                          a.weights, a.v, row_names=toks, key_names=toks)
    else:
        t = tensor("Y", "Y = Z·W_O", "output", out, tb, rows=toks, cols=FEATS)
        derive_projection(t, a.output, W_O, x_name="z", w_name="W_O", row_names=toks)
    body.tensors.append(t)
    body.notes.append(Note(id="hint", box=box(720, 670, 820, 80), kind=t.kind, text=(
        f"Stage {i} of 9 · shape {stages[i - 1][2]} · click or Tab to any cell to see its sum")))
    return body


# ---- 6 · self-attention, cross-attention, masks ----------------------------------------------------
class VariantParams(_P):
    stage: Literal["self", "cross", "causal", "padding", "picker"]


@CHAPTER.builder("walk.variants", VariantParams)
def variants(ctx: BuildContext, p: VariantParams) -> FrameBody:
    """Where Q, K, V come from; the causal and padding masks; a token picker over real rows."""
    river, money = _ctx_sentences(ctx)
    body = FrameBody()
    if p.stage == "self":
        body.widgets.append(cards("src", box(LEFT, 140, 1480, 400), [
            {"title": "self-attention", "kind": "query",
             "body": "Q = X·W_Q   K = X·W_K   V = X·W_V — one sequence asks and answers; an encoder "
                     "may read left and right"},
            {"title": "versus a search engine", "kind": "key",
             "body": "there, one outside request searches a fixed collection; here every token is "
                     "both a request and part of the collection"},
        ], columns=2))
    elif p.stage == "cross":
        s2s = seq2seq(ctx.deck.story.seed)
        # Designed decoder queries: target word t looks like the state of source word t.
        q = np.tanh(2.0 * s2s.x[:3])  # (3, 4)
        a = attend(q, s2s.h, s2s.h, scale=3.0)
        tgt = list(TARGET[:3])
        states = [f"h({w})" for w in SOURCE]
        t = tensor("cross", "cross-attention weights", "weights", a.weights, box(LEFT, 130, 760, 380),
                   rows=tgt, cols=states, heat=True)
        body.tensors.append(derive_weights(t, a.masked, row_names=tgt, col_names=states))
        body.notes.append(Note(id="qkv", box=box(880, 140, 660, 360), kind="key", text=(
            f"Q = Y·W_Q from the decoder ({len(tgt)} target words so far); K = X·W_K and V = X·W_V "
            f"from the encoder ({len(SOURCE)} source words). The map is {len(tgt)} × {len(SOURCE)}: "
            "queries need not equal keys.")))
    elif p.stage == "causal":
        toks = list(river.tokens)
        m = causal_mask(len(toks))
        body.tensors.append(_mask_tensor("causal mask M", m, toks, lambda r, c: (
            f"position {c + 1} is after position {r + 1}: blocked" if c > r else
            f"position {c + 1} is not after position {r + 1}: allowed")))
        body.notes.append(Note(id="rule", box=box(880, 150, 660, 330), kind="mask", text=(
            f"Row i may read columns 1…i: {int((m == 0).sum())} allowed cells, "
            f"{int((m != 0).sum())} blocked. The −∞ is added before softmax, where it becomes a "
            "weight of exactly 0. Used when a model writes text left to right.")))
    elif p.stage == "padding":
        toks = [*money.tokens, "<pad>"]
        keep = np.array([True] * len(money.tokens) + [False])
        m = padding_mask(keep)
        body.tensors.append(_mask_tensor("padding mask M", m, toks, lambda r, c: (
            f"“{toks[c]}” is padding: blocked in every row" if not keep[c] else
            f"“{toks[c]}” is a real token: allowed")))
        body.notes.append(Note(id="rule", box=box(880, 150, 660, 330), kind="mask", text=(
            f"A different mask: sentences in a batch are padded to one length. Every row blocks the "
            f"{int((~keep).sum())} padding column; the future is not the issue here.")))
    else:
        toks = list(river.tokens)
        w = river.attention.weights
        sel = river.index("bank")
        body.widgets.append(Widget(id="picker", type="token-picker", box=box(LEFT, 120, 1480, 640),
                                   kind="weights", data={
                                       "tokens": toks, "rows": [[float(x) for x in r] for r in w],
                                       "sums": [float(r.sum()) for r in w], "selected": sel,
                                       "title": "weights of the chosen query token"}))
    return body


def _mask_tensor(label: str, m: np.ndarray, toks: list[str], why) -> Tensor:
    t = tensor("mask", label, "mask", m, box(LEFT, 130, 760, 520), rows=toks, cols=toks, digits=0)
    return derive_copy(t, lambda r, c: (why(r, c), None if m[r, c] == -np.inf else float(m[r, c])),
                       formula="0 keeps, −∞ blocks", title=lambda r, c: f"M[{toks[r]}, {toks[c]}]")


# ---- 7 · multi-head ----------------------------------------------------------------------------------
class HeadsParams(_P):
    stage: Literal["input", "head1", "out1", "head2", "concat", "shapes", "caveat"]


def _heads(seed: int):
    sel = np.eye(4)  # selector projections: head 1 = features 1–2, head 2 = features 3–4
    rng = np.random.default_rng(seed)
    w_o = np.round(rng.normal(0.0, 0.6, (4, 4)), 2)  # (4, 4) an illustrative output projection
    return multi_head(MH_X, sel, sel, sel, w_o, heads=2), w_o


@CHAPTER.figure_source
def walkthrough_figures(deck) -> dict[str, object]:
    """Figures the walkthrough's words quote: the two-head example and the KV-cache comparison."""
    mh, _ = _heads(deck.story.seed)
    c = costs(deck.preset)
    fig: dict[str, object] = {
        "mh_river_weights": ", ".join(f"{x:.3f}" for x in mh.heads[0].weights[0]),
        "mh_river_out1": _vec(mh.heads[0].output[0], 3), "mh_river_out2": _vec(mh.heads[1].output[0], 3)}
    if c.preset.mla is not None:
        fig |= {"kv_mha_bytes": c.kv_bytes_per_token_layer("mha").value,
                "kv_mla_bytes": c.kv_bytes_per_token_layer("mla").value,
                "kv_ratio": f"{c.kv_ratio('mha', 'mla').value:.1f}"}
    return fig


@CHAPTER.builder("walk.heads", HeadsParams)
def heads(ctx: BuildContext, p: HeadsParams) -> FrameBody:
    """Two selector heads on river, bank, flooded: weights, outputs, concat, W_O, shapes."""
    mh, w_o = _heads(ctx.deck.story.seed)
    toks = list(MH_TOKENS)
    body = FrameBody()
    xt = tensor("X", "X", "input", MH_X, box(LEFT, 120, 420, 240), rows=toks, cols=["1", "2", "3", "4"],
                digits=0)
    derive_copy(xt, lambda r, c: (f"designed input: “{toks[r]}”, feature {c + 1}", float(MH_X[r, c])),
                formula="designed", title=lambda r, c: f"x({toks[r]}), feature {c + 1}")
    body.tensors.append(xt)
    if p.stage in ("shapes", "caveat"):
        body.tensors.clear()
    stage = ["input", "head1", "out1", "head2", "concat", "shapes", "caveat"].index(p.stage)
    if p.stage == "input":
        body.notes.append(Note(id="sel", box=box(540, 130, 1000, 260), kind="input", text=(
            "Head 1 reads features 1–2, head 2 reads features 3–4: selector projections, so "
            "Q = K = V = the selected columns and d_k = 2. Real heads learn projections that mix "
            "every feature.")))
    if 1 <= stage <= 4:
        h1 = mh.heads[0]
        at = tensor("A1", "head 1 weights A¹", "weights", h1.weights, box(520, 120, 520, 260),
                    rows=toks, cols=toks, digits=3, heat=True, highlight=Highlight(rows=[0]))
        body.tensors.append(derive_weights(at, h1.masked, row_names=toks, col_names=toks))
        body.notes.append(Note(id="row", box=box(1080, 130, 460, 230), kind="weights", text=(
            f"Row “river”: {_vec(h1.weights[0], 3)}. Scale 1/√2 = {h1.scale:.3f}.")))
    if 2 <= stage <= 4:
        h1 = mh.heads[0]
        ot = tensor("O1", "head 1 output A¹·V¹", "output", h1.output, box(520, 400, 420, 240),
                    rows=toks, cols=["1", "2"], digits=3, highlight=Highlight(rows=[0]))
        body.tensors.append(derive_output(ot, h1.weights, h1.v, row_names=toks, key_names=toks))
    if 3 <= stage <= 4:
        h2 = mh.heads[1]
        ot2 = tensor("O2", "head 2 output A²·V²", "output", h2.output, box(980, 400, 420, 240),
                     rows=toks, cols=["3", "4"], digits=3, highlight=Highlight(rows=[0]))
        body.tensors.append(derive_output(ot2, h2.weights, h2.v, row_names=toks, key_names=toks))
        body.notes = [n for n in body.notes if n.id != "row"]
        body.notes.append(Note(id="row", box=box(1080, 130, 460, 230), kind="output", text=(
            f"“river”: head 1 gives {_vec(mh.heads[0].output[0], 3)}, head 2 gives "
            f"{_vec(h2.output[0], 3)} (its weights {_vec(h2.weights[0], 3)}).")))
    if stage == 4:
        body.tensors = [t for t in body.tensors if t.name in ("X",)]
        body.notes.clear()
        ct = tensor("cat", "concat(head 1, head 2)", "output", mh.concat, box(LEFT, 400, 470, 240),
                    rows=toks, cols=["1", "2", "3", "4"], digits=3, highlight=Highlight(rows=[0]))
        derive_copy(ct, lambda r, c: (f"head {1 + c // 2} output, “{toks[r]}”, column {c % 2 + 1}",
                                      float(mh.concat[r, c])), formula="[head 1 | head 2]",
                    title=lambda r, c: f"concat({toks[r]}), column {c + 1}")
        wt = tensor("WO", "W_O (illustrative)", "weight", w_o, box(560, 400, 420, 240), digits=2,
                    cols=["1", "2", "3", "4"])
        derive_copy(wt, lambda r, c: ("a parameter: learned in a real model, seeded here",
                                      float(w_o[r, c])), formula="parameter",
                    title=lambda r, c: f"W_O[{r + 1}, {c + 1}]")
        yt = tensor("Y", "output = concat·W_O", "output", mh.output, box(1020, 400, 500, 240), rows=toks,
                    cols=["1", "2", "3", "4"], digits=3, highlight=Highlight(rows=[0]))
        derive_projection(yt, mh.concat, w_o, x_name="concat", w_name="W_O", row_names=toks)
        body.tensors += [ct, wt, yt]
        body.notes.append(Note(id="row", box=box(540, 130, 1000, 230), kind="output", text=(
            f"“river” side by side: {_vec(mh.concat[0], 3)}, four numbers again. W_O mixes the "
            "heads' channels back into the model width before the residual path.")))
    if p.stage == "shapes":
        n, d = MH_X.shape
        dk = mh.heads[0].q.shape[1]
        body.widgets.append(cards("shapes", box(LEFT, 150, 1480, 300), [
            {"title": "X", "body": _shape(n, d), "kind": "input"},
            {"title": "Q, K, V per head", "body": _shape(n, dk), "kind": "query"},
            {"title": "A per head", "body": _shape(n, n), "kind": "weights"},
            {"title": "output per head", "body": _shape(n, dk), "kind": "output"},
            {"title": "concat · W_O", "body": f"{_shape(n, mh.concat.shape[1])} → {_shape(*mh.output.shape)}",
             "kind": "output"},
        ], columns=5, arrows=True))
        body.widgets.append(Widget(id="eq", type="equation", box=box(LEFT, 500, 1480, 110),
                                   data={"name": "multihead"}))
    if p.stage == "caveat":
        body.widgets.append(cards("caveat", box(LEFT, 170, 1480, 380), [
            {"title": "a bright cell is a coefficient, not a concept", "kind": "weights",
             "body": "it says one head, in one layer, on one input, gave one key a larger share. "
                     "“Head 1 found the subject” claims more than the numbers show."},
        ], columns=1))
    return body


# ---- 8 · the cost ------------------------------------------------------------------------------------
class CostParams(_P):
    stage: Literal["pairs", "kv", "mla", "modern"]


PAIR_NS = (1_024, 4_096, 16_384, 65_536, 163_840)


@CHAPTER.builder("walk.cost", CostParams)
def cost(ctx: BuildContext, p: CostParams) -> FrameBody:
    """n² pairs (a slider), the KV cache and MLA's smaller cache, modern variants."""
    c = costs(ctx.deck.preset)
    pre = c.preset
    body = FrameBody()
    if p.stage == "pairs":
        opts = []
        for n in PAIR_NS:
            cells, mem = c.attention_map_cells(n), c.attention_map_bytes(n)
            opts.append({"n": n, "cells": cells.value, "bytes": mem.value, "cells_formula": cells.formula,
                         "bytes_formula": mem.formula,
                         "all_heads_bytes": mem.value * pre.heads, "side": n / PAIR_NS[-1]})
        body.widgets.append(Widget(id="slider", type="slider", box=box(LEFT, 130, 1480, 560),
                                   kind="scores", data={"options": opts, "selected": 1, "heads": pre.heads,
                                                        "title": "context length n",
                                                        "square_label": f"area ∝ n²; the whole square is "
                                                                        f"n = {PAIR_NS[-1]:,}"}))
    elif p.stage == "kv":
        river, _ = _ctx_sentences(ctx)
        dec = decode(river.q, river.k, river.v)
        toks = list(river.tokens)
        t = len(toks)
        kt = tensor("Kc", f"K cache after {t} tokens", "key", river.k, box(LEFT, 130, 520, 400),
                    rows=toks, cols=["1", "2", "3"], highlight=Highlight(rows=[t - 1]))
        vt = tensor("Vc", f"V cache after {t} tokens", "value", river.v, box(620, 130, 520, 400),
                    rows=toks, cols=["1", "2", "3"], highlight=Highlight(rows=[t - 1]))
        body.tensors += [derive_projection(kt, river.x, W_K, x_name="x", w_name="W_K", row_names=toks),
                         derive_projection(vt, river.x, W_V, x_name="x", w_name="W_V", row_names=toks)]
        growth = ", ".join(str(x) for x in dec.cache_numbers)
        per = c.kv_bytes_per_token_layer("mha")
        body.notes.append(Note(id="grow", box=box(1180, 140, 360, 560), kind="key", text=(
            f"Each new token appends one key row and one value row, per head and per layer; old "
            f"rows never change. Numbers cached here after each token: {growth}. At DeepSeek-V3.2 "
            f"size: {fmt_count(per.value)} bytes per token per layer.")))
        body.counters.append(_counter("kvtok", c.kv_bytes_per_token("mha"), "MHA cache per token"))
    elif p.stage == "mla":
        mha, mla = c.kv_bytes_per_token_layer("mha"), c.kv_bytes_per_token_layer("mla")
        body.widgets.append(bars("kvbars", box(LEFT, 150, 1000, 300), "KV cache bytes per token per layer",
                                 ["MHA", "MLA"], np.array([mha.value, mla.value]),
                                 kind="key", digits=0, show_sum=False,
                                 value_labels=[f"{fmt_count(mha.value)} B", f"{fmt_count(mla.value)} B"]))
        ratio = c.kv_ratio("mha", "mla")
        body.notes.append(Note(id="mla", box=box(1100, 140, 440, 520), kind="key", text=(
            f"MHA stores {mha.formula.split(') ×')[0].lstrip('(')} numbers; MLA stores a shared "
            f"latent: {c.kv_numbers_per_token_layer('mla').formula}. That is {ratio.value:.1f}× less "
            f"(× {pre.layers} layers: {fmt_count(c.kv_bytes_per_token('mla').value)} bytes per "
            f"token). Source: DeepSeek-V2/V3 reports.")))
    else:
        body.widgets.append(cards("modern", box(LEFT, 150, 1480, 440), [
            {"title": "MLA (DeepSeek)", "kind": "key",
             "body": "caches a small latent per token instead of every head's keys and values"},
            {"title": "hybrid patterns", "kind": "mask",
             "body": "mix different attention patterns across layers (Kimi K3 is described this way)"},
            {"title": "unchanged roles", "kind": "query",
             "body": "queries still ask, keys still match, values still carry, masks still decide "
                     "who may be seen"},
        ], columns=3))
    return body


class FlashParams(_P):
    tile: int = Field(ge=0, description="1-based tile to show; 0 shows the final comparison.")


FLASH_BLOCK = 4


@CHAPTER.builder("walk.flash", FlashParams)
def flash(ctx: BuildContext, p: FlashParams) -> FrameBody:
    """FlashAttention tile by tile: per-tile S, running m, ℓ and O; the end equals exact attention."""
    river, _ = _ctx_sentences(ctx)
    fa = flash_attend(river.q, river.k, river.v, block_size=FLASH_BLOCK)
    exact = attend(river.q, river.k, river.v).output
    toks = list(river.tokens)
    n = len(toks)
    last = len(fa.tiles)
    current = last if p.tile == 0 or p.tile > last else p.tile
    tiles = [{"i": t.i, "j": t.j, "rows": list(t.rows), "cols": list(t.cols),
              "s": [[float(x) for x in r] for r in t.s], "m_tilde": [float(x) for x in t.m_tilde],
              "l_tilde": [float(x) for x in t.l_tilde], "m": [float(x) for x in t.m],
              "l": [float(x) for x in t.l], "o": [[float(x) for x in r] for r in t.o]}
             for t in fa.tiles]
    body = FrameBody()
    body.widgets.append(Widget(id="flash", type="flash", box=box(LEFT, 110, 1480, 570), kind="scores", data={
        "tokens": toks, "n": n, "block": FLASH_BLOCK, "tiles": tiles, "current": current - 1,
        "final": p.tile == 0, "exact": [[float(x) for x in r] for r in exact],
        "max_diff": float(np.abs(fa.output - exact).max())}))
    if p.tile == 0:
        body.notes.append(Note(id="eq", box=box(LEFT, 690, 1480, 80), kind="output", text=(
            f"After the last tile, O equals exact softmax(QKᵀ/√d_k)V: largest difference "
            f"{np.abs(fa.output - exact).max():.1e}. The {n} × {n} map was never stored whole.")))
    return body


# ---- 9 · the mechanism in one view -------------------------------------------------------------------
class SummaryParams(_P):
    stage: Literal["retrieval", "routing", "shapes", "heads"]


SUMMARY = [
    {"title": "learned retrieval", "kind": "query",
     "body": "compare each query with every key, softmax the scores, sum the value rows with those "
             "weights; training shapes the projections"},
    {"title": "routing, not reasoning", "kind": "weights",
     "body": "a map shows where one head in one layer sent weight, not which concept the model used"},
    {"title": "shapes expose mistakes", "kind": "scores",
     "body": "Q n_q × d_k and K n_k × d_k give QKᵀ n_q × n_k; with V n_k × d_v the output is n_q × d_v"},
    {"title": "many heads, one width", "kind": "output",
     "body": "each head has its own projections and map; concat and W_O return to the model width"},
]


@CHAPTER.builder("walk.summary", SummaryParams)
def summary(ctx: BuildContext, p: SummaryParams) -> FrameBody:
    """The closing cards, revealed one by one."""
    n = ["retrieval", "routing", "shapes", "heads"].index(p.stage) + 1
    return FrameBody(widgets=[cards("sum", box(LEFT, 130, 1480, 600), SUMMARY[:n], columns=2, active=n - 1)])
