"""Frame builders for chapter 1, "Attention step by step" (deck ``attention-step-by-step``).

Every number comes from the story model (designed inputs, see ``attention_talk.story``) through the
engine, or from the cost model (``attention_talk.engine.costs``). Layout is in stage units
(1600 × 900): the slide title sits above y ≈ 100 and the caption bar below y ≈ 780.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from attention_talk.engine import multi_head
from attention_talk.engine.costs import Costs, costs, fmt
from attention_talk.figures import figures, fill
from attention_talk.frames.context import BuildContext
from attention_talk.frames.kit.derivations import (
    derive_copy,
    derive_output,
    derive_projection,
    derive_scores,
    derive_sum,
    derive_weights,
)
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.model import Box, Counter, FrameBody, Highlight, Note, Symbol, Tensor, Widget
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.story import embed_words


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _fmt(x: float, digits: int = 2) -> str:
    s = f"{x:.{digits}f}"
    if float(s) == 0:
        s = f"{0:.{digits}f}"
    return s.replace("-", "−")


def _box(x: float, y: float, w: float, h: float) -> Box:
    return Box(x=x, y=y, w=w, h=h)


def _preset(ctx: BuildContext) -> Costs:
    return costs(ctx.deck.preset)


# ---------------------------------------------------------------------------------------------
# The FLOP counter, in the order the talk adds work (one layer, the story's n tokens).
# ---------------------------------------------------------------------------------------------

CounterStage = Literal["q1", "q_all", "k_all", "scores", "v_all", "mix", "w_o", "heads", "per_token"]
COUNTER_STAGES: tuple[str, ...] = CounterStage.__args__  # type: ignore[attr-defined]


@dataclass(frozen=True)
class CounterValue:
    value: int
    formula: str
    label: str


def flop_counter(c: Costs, n: int, stage: str) -> CounterValue:
    """Total attention FLOPs of the work shown so far, for n tokens (2 FLOPs per multiply-add).

    q1: one head's W_Q on one token (2·d·d_k) · q_all: on all n tokens · k_all: + W_K ·
    scores: + QKᵀ (2·d_k·n²) · v_all: + W_V · mix: + weights × V (2·d_v·n²) · w_o: + W_O
    (2·d_v·d·n) · heads: × h · per_token: ÷ n, which is the cost model's 939,524,096 + 65,536·n.
    """
    p = c.preset
    proj = c.flops_projection_per_head("W_Q").value  # 2·d·d_k
    proj_v = c.flops_projection_per_head("W_V").value  # 2·d·d_v
    proj_o = c.flops_projection_per_head("W_O").value  # 2·d_v·d
    qk = 2 * p.d_k * n * n  # one head, n queries × n keys
    av = 2 * p.d_v * n * n
    running = {
        "q1": proj,
        "q_all": proj * n,
        "k_all": 2 * proj * n,
        "scores": 2 * proj * n + qk,
        "v_all": 2 * proj * n + qk + proj_v * n,
        "mix": 2 * proj * n + qk + proj_v * n + av,
        "w_o": 2 * proj * n + qk + proj_v * n + av + proj_o * n,
    }
    one_head = running["w_o"]
    d, dk = fmt(p.d_model), p.d_k
    tok = f"{n} tokens"
    formulas = {
        "q1": (f"2·d·d_k = 2 × {d} × {dk}", "1 head · 1 token · W_Q"),
        "q_all": (f"2·d·d_k·n = {fmt(proj)} × {n}", f"1 head · {tok} · W_Q"),
        "k_all": (f"+ W_K: 2 × {fmt(proj * n)}", f"1 head · {tok} · W_Q W_K"),
        "scores": (f"+ QKᵀ: 2·d_k·n² = 2 × {dk} × {n}² = {fmt(qk)}", f"1 head · {tok} · W_Q W_K QKᵀ"),
        "v_all": (f"+ W_V: 2·d·d_v·n = {fmt(proj_v * n)}", f"1 head · {tok} · W_Q W_K QKᵀ W_V"),
        "mix": (f"+ weights × V: 2·d_v·n² = {fmt(av)}", f"1 head · {tok} · … + weights·V"),
        "w_o": (f"+ W_O: 2·d_v·d·n = {fmt(proj_o * n)}", f"1 head · {tok} · all of it"),
        "heads": (f"{fmt(one_head)} × h = {fmt(one_head)} × {p.heads}", f"{p.heads} heads · {tok}"),
    }
    if stage == "heads":
        f, label = formulas["heads"]
        return CounterValue(one_head * p.heads, f, label)
    if stage == "per_token":
        total = c.flops_per_token()
        at_n = total.at(n)
        return CounterValue(int(at_n.value), f"{total.formula} at n = {n}: ({fmt(one_head * p.heads)}) ÷ {n}",
                            "per token · this layer")
    f, label = formulas[stage]
    return CounterValue(running[stage], f, label)


def counter(ctx: BuildContext, stage: str) -> Counter:
    c = _preset(ctx)
    v = flop_counter(c, len(ctx.tokens), stage)
    return Counter(id="flops", label=f"FLOPs · {v.label}", value=v.value, formula=v.formula,
                   source=c.flop_source, unit="")


# ---------------------------------------------------------------------------------------------
# Shared pictures
# ---------------------------------------------------------------------------------------------


def tokens_widget(wid: str, tokens: list[str], box: Box, *, focus: int | None = None,
                  links: list[float] | None = None, caption: str = "", kind: str = "input") -> Widget:
    """A row of token chips; optional arcs from the focus token to others (strength 0–1)."""
    return Widget(id=wid, type="tokens", box=box, kind=kind,
                  data={"tokens": tokens, "focus": focus, "links": links, "caption": caption})


def row_of(a: np.ndarray, i: int) -> np.ndarray:
    return a[i : i + 1]  # (1, cols)


# Derivations for the cells that are not computed on the slide (the rest use derive_projection,
# derive_scores, derive_weights, derive_output and derive_sum directly).


def embedded(t: Tensor, x: np.ndarray, names: list[str], *, where: str = "") -> Tensor:
    """Rows of X (or one row, ``x`` (1, d)): each cell is looked up in the embedding table."""
    return derive_copy(t, lambda r, c: (f"row of the embedding table for token “{names[r]}”{where}, "
                                        f"column {c + 1:,}", float(x[r, c])),
                       formula="embedding lookup", title=lambda r, c: f"x(“{names[r]}”), feature {c + 1:,}")


def learned(t: Tensor, w: np.ndarray, name: str) -> Tensor:
    """A weight matrix: each cell is a parameter, not computed from the input."""
    return derive_copy(t, lambda r, c: ("a learned weight, initialised at random and set by training "
                                        "(designed here for the story)", float(w[r, c])),
                       formula="learned parameter",
                       title=lambda r, c: f"{name}, row {r + 1:,}, column {c + 1:,}")


# ---------------------------------------------------------------------------------------------
# 1. Zoom into the first block
# ---------------------------------------------------------------------------------------------


class StackParams(_Params):
    stage: Literal["model", "block"]


@CHAPTER.builder("story.stack", StackParams)
def model_stack(ctx: BuildContext, p: StackParams) -> FrameBody:
    """The model as a stack of blocks, then the inside of the first one."""
    pr = _preset(ctx).preset
    data = {"tokens": ctx.tokens, "layers": pr.layers, "d_model": pr.d_model, "heads": pr.heads,
            "vocab": pr.vocab, "zoom": p.stage == "block"}
    return FrameBody(widgets=[Widget(id="stack", type="stack", box=_box(60, 115, 1480, 650), data=data)])


# ---------------------------------------------------------------------------------------------
# 2. Tokens need context
# ---------------------------------------------------------------------------------------------

AMBIGUOUS = ("the bat flew out of the cave", "he swung the bat at the ball")


class ContextParams(_Params):
    stage: Literal["table", "pick", "bat", "neighbours"]


@CHAPTER.builder("story.context", ContextParams)
def tokens_need_context(ctx: BuildContext, p: ContextParams) -> FrameBody:
    """The input table; one row is "dog"; an ambiguous word has one row; neighbours decide."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    body = FrameBody()
    if p.stage in ("table", "pick"):
        hl = Highlight(rows=[focus]) if p.stage == "pick" else Highlight()
        body.tensors.append(embedded(tensor("X", "input table X", "input", s.x, _box(60, 130, 1000, 560),
                                            rows=toks, max_cols=9, highlight=hl), s.x, toks))
        d = fmt(s.x.shape[1])
        text = (f"{len(toks)} tokens, one row each. A row is the token's embedding: {d} numbers."
                if p.stage == "table" else
                f"The row of “{toks[focus]}”: {d} numbers, fetched from a table. On its own it "
                f"says nothing about the other {len(toks) - 1} words.")
        body.notes.append(Note(id="about", text=text, box=_box(1110, 200, 430, 300), kind="input"))
        return body
    if p.stage == "bat":
        a, b = (sentence.split() for sentence in AMBIGUOUS)
        xa, xb = (embed_words(t, seed=ctx.deck.story.seed) for t in (a, b))
        ia, ib = a.index("bat"), b.index("bat")
        body.widgets += [tokens_widget("sent-a", a, _box(80, 140, 1000, 80), focus=ia),
                         tokens_widget("sent-b", b, _box(80, 420, 1000, 80), focus=ib)]
        body.tensors += [
            embedded(tensor("bat-a", "“bat” in sentence 1", "input", row_of(xa, ia), _box(80, 235, 1000, 110),
                            rows=["bat"], max_cols=10), row_of(xa, ia), ["bat"], where=f" (word {ia + 1} of {len(a)})"),
            embedded(tensor("bat-b", "“bat” in sentence 2", "input", row_of(xb, ib), _box(80, 515, 1000, 110),
                            rows=["bat"], max_cols=10), row_of(xb, ib), ["bat"], where=f" (word {ib + 1} of {len(b)})"),
        ]
        same = bool(np.array_equal(xa[ia], xb[ib]))
        text = ("Identical rows: all " + fmt(xa.shape[1]) + " numbers match." if same else
                "The rows differ.")  # computed, so the slide cannot claim what is not true
        body.notes.append(Note(id="about", text=text + " The animal and the club start from the "
                               "same vector.", box=_box(1130, 300, 410, 200), kind="input"))
        return body
    # neighbours: arcs from the focus token to the words around it, no numbers yet
    links = [0.0 if i == focus else 0.6 for i in range(len(toks))]
    body.widgets.append(tokens_widget("sentence", toks, _box(160, 330, 1280, 170), focus=focus,
                                      links=links))
    body.notes.append(Note(id="about", box=_box(360, 560, 880, 140), kind="neutral", text=(
        f"Which neighbours tell us what “{toks[focus]}” means here? Mixing in the right ones, "
        "for every token at once, is the job of attention.")))
    return body


# ---------------------------------------------------------------------------------------------
# 3. The query
# ---------------------------------------------------------------------------------------------


class QueryParams(_Params):
    stage: Literal["ask", "vector", "dog"]


@CHAPTER.builder("story.query", QueryParams)
def query(ctx: BuildContext, p: QueryParams) -> FrameBody:
    """A token asks a question: a learned vector of length d_k."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    d_k = s.q.shape[1]
    body = FrameBody(widgets=[tokens_widget("sentence", toks, _box(160, 140, 1280, 90), focus=focus)])
    if p.stage == "ask":
        body.notes.append(Note(id="ask", box=_box(420, 300, 760, 130), kind="query", text=(
            f"“{toks[focus]}” asks: what am I looking for? Perhaps a word that describes me.")))
        return body
    reveal = "all" if p.stage == "dog" else "none"
    body.tensors.append(derive_projection(
        tensor("q", f"query of “{toks[focus]}”", "query", row_of(s.q, focus), _box(160, 300, 1280, 120),
               rows=[toks[focus]], max_cols=14, reveal=reveal),
        row_of(s.x, focus), s.w_q, x_name="x", w_name="W_Q", row_names=[toks[focus]]))
    text = (f"A question is a vector. Its length is a design choice: here d_k = {d_k}. Its numbers "
            "are learned, like everything else." if p.stage == "vector" else
            f"The {d_k} numbers of this question, computed from the row of “{toks[focus]}”. Nobody "
            "wrote them; training shapes what they ask.")
    body.notes.append(Note(id="about", text=text, box=_box(300, 480, 1000, 140), kind="query"))
    return body


# ---------------------------------------------------------------------------------------------
# 4. A query is a dense layer
# ---------------------------------------------------------------------------------------------


class DenseParams(_Params):
    stage: Literal["network", "neuron", "weights"]


@CHAPTER.builder("story.dense", DenseParams)
def dense_layer(ctx: BuildContext, p: DenseParams) -> FrameBody:
    """Token in (d numbers), question out (d_k): every output a neuron wired to every input."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    x, q, w = s.x[focus], s.q[focus], s.w_q  # (d,), (d_k,), (d, d_k)
    d, d_k = w.shape
    ins = [0, 1, 2, 3, 4, d - 1]
    outs = [0, 1, 2, 3, d_k - 1]
    c = _preset(ctx)
    data = {
        "inputs": [{"index": i + 1, "value": float(x[i])} for i in ins], "n_in": d,
        "outputs": [{"index": j + 1, "value": float(q[j])} for j in outs], "n_out": d_k,
        "focus_output": 0 if p.stage == "neuron" else None, "all_links": p.stage == "weights",
        "token": toks[focus],
    }
    body = FrameBody(widgets=[Widget(id="dense", type="dense", kind="query", box=_box(60, 120, 1000, 650),
                                     data=data)])
    if p.stage == "network":
        text = (f"The same step as an old-fashioned neural network: {fmt(d)} numbers of “{toks[focus]}” "
                f"go in, {d_k} numbers of its question come out.")
    elif p.stage == "neuron":
        terms = " + ".join(f"{_fmt(x[i])}×{_fmt(w[i, 0], 3)}" for i in range(3))
        text = (f"Output 1 is one neuron: it multiplies all {fmt(d)} inputs by its own weights and adds "
                f"them: {terms} + … = {_fmt(q[0])}.")
    else:
        wc = c.weights_per_head("W_Q")
        text = (f"{d_k} neurons × {fmt(d)} inputs = {fmt(wc.value)} weights ({wc.formula}). Only a few "
                "connections are drawn.")
    body.notes.append(Note(id="about", text=text, box=_box(1100, 200, 440, 330), kind="query"))
    return body


# ---------------------------------------------------------------------------------------------
# 5. The query matrix W_Q and the counter
# ---------------------------------------------------------------------------------------------


class WqParams(_Params):
    stage: Literal["matrix", "multiply", "counter"]


def _row_times_matrix(ctx: BuildContext, x_row: np.ndarray, w: np.ndarray, out_row: np.ndarray, *,
                      x_label: str, w_name: str, w_label: str, out_name: str, out_label: str,
                      out_kind: str, in_kind: str = "input") -> FrameBody:
    """x (1 × d) · W (d × d_k) = out (1 × d_k), laid out left to right."""
    tok = ctx.tokens[ctx.focus]
    return FrameBody(
        tensors=[
            embedded(tensor("x-row", x_label, in_kind, x_row, _box(40, 400, 440, 110), rows=[tok], max_cols=5),
                     x_row, [tok]),
            learned(tensor(w_name, w_label, "weight", w, _box(560, 130, 520, 620), max_rows=11, max_cols=6),
                    w, w_name),
            derive_projection(tensor(out_name, out_label, out_kind, out_row, _box(1160, 400, 400, 110),
                                     rows=[tok], max_cols=4),
                              x_row, w, x_name=x_label, w_name=w_name, row_names=[tok]),
        ],
        symbols=[Symbol(id="times", text="×", x=520, y=470), Symbol(id="equals", text="=", x=1120, y=470)],
    )


@CHAPTER.builder("story.wq", WqParams)
def query_matrix(ctx: BuildContext, p: WqParams) -> FrameBody:
    """W_Q: all the neurons' weights as one matrix; the token's row times W_Q is its query."""
    s, focus = ctx.story, ctx.focus
    d, d_k = s.w_q.shape
    if p.stage == "matrix":
        body = FrameBody(tensors=[learned(tensor("W_Q", "W_Q", "weight", s.w_q, _box(60, 120, 900, 640),
                                                 max_rows=12, max_cols=8), s.w_q, "W_Q")])
        body.notes.append(Note(id="about", box=_box(1010, 220, 530, 300), kind="weight", text=(
            f"The weights of the {d_k} neurons side by side: a {fmt(d)} × {d_k} matrix. It starts "
            "as random numbers; training adjusts them. The model learns which questions to ask.")))
        return body
    body = _row_times_matrix(ctx, row_of(s.x, focus), s.w_q, row_of(s.q, focus), x_label="x",
                             w_name="W_Q", w_label="W_Q", out_name="q-row", out_label="q",
                             out_kind="query")
    if p.stage == "counter":
        body.counters.append(counter(ctx, "q1"))
    return body


# ---------------------------------------------------------------------------------------------
# 6. Keys
# ---------------------------------------------------------------------------------------------


class KeysParams(_Params):
    stage: Literal["room", "offer", "wk"]


@CHAPTER.builder("story.keys", KeysParams)
def keys(ctx: BuildContext, p: KeysParams) -> FrameBody:
    """Every token offers a key: what it can answer. W_K has the shape of W_Q."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    body = FrameBody(counters=[counter(ctx, "q1")])
    body.tensors.append(derive_projection(
        tensor("q-row", f"query of “{toks[focus]}”", "query", row_of(s.q, focus), _box(60, 120, 760, 110),
               rows=[toks[focus]], max_cols=8),
        row_of(s.x, focus), s.w_q, x_name="x", w_name="W_Q", row_names=[toks[focus]]))
    if p.stage == "room":
        body.notes.append(Note(id="about", box=_box(60, 300, 1100, 170), kind="key", text=(
            "The question is ready. Who answers it? Asking every other token one by one would be "
            "slow; the answers must come all at once, in parallel.")))
        return body
    body.tensors.append(derive_projection(
        tensor("K", "keys K", "key", s.k, _box(60, 270, 760, 480), rows=toks, max_cols=8,
               reveal="none" if p.stage == "offer" else "all"),
        s.x, s.w_k, x_name="x", w_name="W_K", row_names=toks))
    if p.stage == "offer":
        body.notes.append(Note(id="about", box=_box(880, 300, 660, 240), kind="key", text=(
            f"Each token also makes a key: a vector of {s.k.shape[1]} numbers saying what it is "
            "good at answering. A query and a key that point the same way make a good match.")))
        return body
    wc = _preset(ctx).weights_per_head("W_K")
    body.tensors.append(learned(tensor("W_K", "W_K", "weight", s.w_k, _box(880, 270, 660, 480), max_rows=10,
                                       max_cols=6), s.w_k, "W_K"))
    body.notes.append(Note(id="about", box=_box(880, 112, 660, 140), kind="key", text=(
        f"Keys come from their own matrix W_K: the shape of W_Q ({wc.formula} = {fmt(wc.value)} "
        "weights), learned the same way.")))
    return body


# ---------------------------------------------------------------------------------------------
# 7. Every token at once
# ---------------------------------------------------------------------------------------------


class BatchParams(_Params):
    stage: Literal["queries", "keys"]


@CHAPTER.builder("story.batch", BatchParams)
def every_token(ctx: BuildContext, p: BatchParams) -> FrameBody:
    """The whole table times W_Q gives every query; times W_K every key: one multiply each."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    hl = Highlight(rows=[focus])
    x = embedded(tensor("X", "X", "input", s.x, _box(40, 300, 520, 420), rows=toks, max_cols=5, highlight=hl),
                 s.x, toks)
    if p.stage == "queries":
        w, out = (learned(tensor("W_Q", "W_Q", "weight", s.w_q, _box(620, 130, 420, 620), max_rows=11,
                                 max_cols=5), s.w_q, "W_Q"),
                  derive_projection(tensor("Q", "Q = X·W_Q", "query", s.q, _box(1100, 300, 460, 420), rows=toks,
                                           max_cols=4, highlight=hl),
                                    s.x, s.w_q, x_name="x", w_name="W_Q", row_names=toks))
        stage = "q_all"
    else:
        w, out = (learned(tensor("W_K", "W_K", "weight", s.w_k, _box(620, 130, 420, 620), max_rows=11,
                                 max_cols=5), s.w_k, "W_K"),
                  derive_projection(tensor("K", "K = X·W_K", "key", s.k, _box(1100, 300, 460, 420), rows=toks,
                                           max_cols=4, highlight=hl),
                                    s.x, s.w_k, x_name="x", w_name="W_K", row_names=toks))
        stage = "k_all"
    return FrameBody(tensors=[x, w, out], counters=[counter(ctx, stage)],
                     symbols=[Symbol(id="times", text="×", x=590, y=510),
                              Symbol(id="equals", text="=", x=1070, y=510)])


# ---------------------------------------------------------------------------------------------
# 8. Q·Kᵀ: the attention map, and the causal mask
# ---------------------------------------------------------------------------------------------

MapStage = Literal["queries", "keys", "cell", "scores", "row", "mask"]
_STAGES: tuple[str, ...] = MapStage.__args__  # type: ignore[attr-defined]


class MapParams(_Params):
    stage: MapStage
    key: str | None = None  # the key token of the cell computed in the "cell" stage


def dot_product_note(q: np.ndarray, k: np.ndarray, q_name: str, k_name: str, terms: int = 3) -> str:
    """'q(dog) · k(old) = 0.07×0.12 + … (128 products) = 25.8', computed from the vectors."""
    shown = " + ".join(f"{_fmt(a)}×{_fmt(b)}" for a, b in zip(q[:terms], k[:terms], strict=True))
    return f"q({q_name}) · k({k_name}) = {shown} + … ({len(q)} products) = {_fmt(float(q @ k), 1)}"


@CHAPTER.builder("story.map", MapParams)
def attention_map(ctx: BuildContext, p: MapParams) -> FrameBody:
    """The attention map Q·Kᵀ built up: queries, keys, one cell, the map, the focus row, the mask."""
    s = ctx.story
    toks, focus = ctx.tokens, ctx.focus
    level = _STAGES.index(p.stage)
    att = s.attention(causal=True)
    q_box = _box(40, 350, 600, 420)
    k_box, map_box = _box(680, 112, 600, 230), _box(680, 350, 600, 420)
    body = FrameBody(counters=[counter(ctx, "scores" if level >= 3 else "k_all")])
    focus_rows = Highlight(rows=[focus]) if level >= 2 else Highlight()
    body.tensors.append(derive_projection(tensor("Q", "queries Q = X·W_Q", "query", s.q, q_box, rows=toks,
                                                 max_cols=6, highlight=focus_rows),
                                          s.x, s.w_q, x_name="x", w_name="W_Q", row_names=toks))
    if level == 0:
        return body
    key = toks.index(p.key) if p.key in toks else max(focus - 1, 0)
    key_hl = Highlight(cols=[key]) if level == 2 else Highlight()
    body.tensors.append(derive_projection(tensor("KT", "keys Kᵀ", "key", s.k.T, k_box, cols=toks, max_rows=5,
                                                 highlight=key_hl, transposed=True, gutter=96),
                                          s.x, s.w_k, x_name="x", w_name="W_K", row_names=toks, transposed=True))
    if level == 1:
        return body
    is_masked = level >= 5
    values = att.scores + att.mask if is_masked else att.scores  # (n, n); −∞ above the diagonal
    hl = {2: Highlight(cells=[(focus, key)]), 3: Highlight(), 4: Highlight(rows=[focus])}.get(
        level, Highlight(rows=[focus]))
    label = "masked map Q·Kᵀ + M" if is_masked else "attention map Q·Kᵀ"
    body.tensors.append(derive_scores(tensor("map", label, "mask" if is_masked else "scores", values, map_box,
                                             rows=toks, cols=toks, digits=1, heat=level >= 3, highlight=hl,
                                             gutter=96, reveal="highlight" if level == 2 else "all"),
                                      s.q, s.k, row_names=toks, col_names=toks,
                                      mask=att.mask if is_masked else None))
    note_box = _box(1310, 350, 260, 400)
    if level == 2:
        text = dot_product_note(s.q[focus], s.k[key], toks[focus], toks[key])
        body.notes.append(Note(id="dot", text=text, box=note_box, kind="scores"))
    elif level == 4:
        row = att.scores[focus]
        best = int(np.argmax(row[: focus + 1]))
        body.notes.append(Note(id="row", box=note_box, kind="query", text=(
            f"Row “{toks[focus]}”: the asker. Among the tokens up to itself, its largest score is "
            f"with “{toks[best]}” ({_fmt(float(row[best]), 1)}).")))
    elif level == 5:
        seen = ", ".join(f"“{t}”" for t in toks[: focus + 1])
        later = len(toks) - focus - 1
        body.notes.append(Note(id="row", box=note_box, kind="mask", text=(
            f"“{toks[focus]}” may read {seen}; its {later} later cells are −∞.")))
    return body


# ---------------------------------------------------------------------------------------------
# 9. The size of the map
# ---------------------------------------------------------------------------------------------


def growth_sizes(c: Costs, n0: int) -> list[dict]:
    """Context lengths n0, 2·n0, 4·n0, … up to the preset's maximum, with what grows."""
    limit = c.preset.max_positions or 163_840
    ns = []
    n = n0
    while n < limit:
        ns.append(n)
        n *= 2
    ns.append(limit)
    total = c.flops_per_token()
    out = []
    for n in ns:
        cells = c.attention_map_cells(n)
        mem = c.attention_map_bytes(n)
        out.append({"n": n, "cells": int(cells.value), "cells_formula": cells.formula,
                    "bytes": int(mem.value), "bytes_formula": mem.formula,
                    "context_flops": total.per_n * n, "projection_flops": total.constant,
                    "context_formula": f"{fmt(total.per_n)} × {fmt(n)}"})
    return out


class SizeParams(_Params):
    stage: Literal["square", "double", "grow"]


@CHAPTER.builder("story.size", SizeParams)
def map_size(ctx: BuildContext, p: SizeParams) -> FrameBody:
    """The map has context × context cells: double the context, four times the map."""
    c = _preset(ctx)
    n = len(ctx.tokens)
    sizes = growth_sizes(c, n)
    data = {"sizes": sizes, "index": 0 if p.stage == "square" else 1, "interactive": p.stage == "grow",
            "source": c.source}
    return FrameBody(widgets=[Widget(id="growth", type="growth", kind="scores", box=_box(60, 115, 1480, 655),
                                     data=data)], counters=[counter(ctx, "scores")])


# ---------------------------------------------------------------------------------------------
# 10. Values
# ---------------------------------------------------------------------------------------------


class ValuesParams(_Params):
    stage: Literal["where", "vector", "wv", "table"]


@CHAPTER.builder("story.values", ValuesParams)
def values(ctx: BuildContext, p: ValuesParams) -> FrameBody:
    """The map picks whom to read, not what to take from them: the third vector, the value."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    att = s.attention(causal=True)
    if p.stage == "where":
        body = FrameBody(counters=[counter(ctx, "scores")])
        body.tensors += [
            embedded(tensor("X", "input table X", "input", s.x, _box(40, 130, 860, 560), rows=toks, max_cols=7,
                            highlight=Highlight(rows=[focus])), s.x, toks),
            derive_scores(tensor("map", "masked map", "mask", att.scores + att.mask, _box(1060, 120, 500, 330),
                                 rows=toks, cols=toks, digits=0, heat=True),
                          s.q, s.k, row_names=toks, col_names=toks, mask=att.mask),
        ]
        body.notes.append(Note(id="about", box=_box(960, 500, 600, 220), kind="value", text=(
            "The map tells each token where to look. It does not say what to take from there: "
            "for that, each token needs a third vector.")))
        return body
    if p.stage in ("vector", "wv"):
        body = _row_times_matrix(ctx, row_of(s.x, focus), s.w_v, row_of(s.v, focus), x_label="x",
                                 w_name="W_V", w_label="W_V", out_name="v-row", out_label="v",
                                 out_kind="value")
        body.counters.append(counter(ctx, "scores"))
        if p.stage == "vector":
            body.tensors = [body.tensors[0], body.tensors[2]]
            body.symbols = [Symbol(id="arrow", text="→", x=520, y=470)]
            body.tensors[1] = body.tensors[1].model_copy(update={"box": _box(620, 400, 600, 110)})
            body.notes.append(Note(id="about", box=_box(300, 580, 1000, 140), kind="value", text=(
                f"The value: what “{toks[focus]}” hands over when someone attends to it. "
                f"{s.v.shape[1]} numbers, made from the same row.")))
        else:
            wc = _preset(ctx).weights_per_head("W_V")
            body.notes.append(Note(id="about", box=_box(1140, 560, 420, 190), kind="weight", text=(
                f"A third learned matrix, W_V: {wc.formula}, random at first.")))
        return body
    hl = Highlight(rows=[focus])
    return FrameBody(
        tensors=[embedded(tensor("X", "X", "input", s.x, _box(40, 300, 520, 420), rows=toks, max_cols=5,
                                 highlight=hl), s.x, toks),
                 learned(tensor("W_V", "W_V", "weight", s.w_v, _box(620, 130, 420, 620), max_rows=11, max_cols=5),
                         s.w_v, "W_V"),
                 derive_projection(tensor("V", "V = X·W_V", "value", s.v, _box(1100, 300, 460, 420), rows=toks,
                                          max_cols=4, highlight=hl),
                                   s.x, s.w_v, x_name="x", w_name="W_V", row_names=toks)],
        symbols=[Symbol(id="times", text="×", x=590, y=510), Symbol(id="equals", text="=", x=1070, y=510)],
        counters=[counter(ctx, "v_all")])


# ---------------------------------------------------------------------------------------------
# 11. Softmax and the blend of values
# ---------------------------------------------------------------------------------------------


class SoftmaxParams(_Params):
    stage: Literal["scale", "weights", "zeros", "blend", "dog"]


@CHAPTER.builder("story.softmax", SoftmaxParams)
def softmax_step(ctx: BuildContext, p: SoftmaxParams) -> FrameBody:
    """Scale, softmax row by row (rows sum to 1, masked cells exactly 0), then weights × V."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    att = s.attention(causal=True)
    d_k = s.q.shape[1]
    n = len(toks)
    hl = Highlight(rows=[focus])

    def scaled(t: Tensor) -> Tensor:  # att.masked = Q·Kᵀ × 1/√d_k + M
        return derive_scores(t, s.q, s.k, row_names=toks, col_names=toks, scale=att.scale, mask=att.mask)

    def weights(t: Tensor) -> Tensor:
        return derive_weights(t, att.masked, row_names=toks, col_names=toks)

    if p.stage == "scale":
        return FrameBody(
            tensors=[derive_scores(tensor("map", "masked map Q·Kᵀ + M", "mask", att.scores + att.mask,
                                          _box(40, 150, 650, 520), rows=toks, cols=toks, digits=1, heat=True,
                                          highlight=hl),
                                   s.q, s.k, row_names=toks, col_names=toks, mask=att.mask),
                     scaled(tensor("scaled", f"scaled: ÷ √{d_k}", "mask", att.masked, _box(900, 150, 660, 520),
                                   rows=toks, cols=toks, digits=2, heat=True, highlight=hl))],
            symbols=[Symbol(id="div", text=f"÷ {_fmt(1 / att.scale, 2)}", x=795, y=420, size=34)],
            notes=[Note(id="about", box=_box(300, 690, 1000, 80), kind="scores", text=(
                f"Divide by √d_k = √{d_k} = {_fmt(1 / att.scale, 2)} so the scores stay in a range where "
                "softmax still has useful slopes."))],
            counters=[counter(ctx, "v_all")])
    sums = att.weights.sum(axis=1, keepdims=True)  # (n, 1), computed, not assumed
    if p.stage in ("weights", "zeros"):
        zero_cells = [(i, j) for i in range(n) for j in range(n) if att.mask[i, j] == -np.inf]
        w_hl = Highlight(rows=[focus]) if p.stage == "weights" else Highlight(cells=zero_cells)
        body = FrameBody(
            tensors=[scaled(tensor("scaled", f"scaled: ÷ √{d_k}", "mask", att.masked, _box(40, 150, 620, 520),
                                   rows=toks, cols=toks, digits=2, heat=True, highlight=hl)),
                     weights(tensor("weights", "weights = softmax(row)", "weights", att.weights,
                                    _box(760, 150, 620, 520), rows=toks, cols=toks, digits=2, heat=True,
                                    highlight=w_hl, gutter=96)),
                     derive_sum(tensor("sums", "row sum", "weights", sums, _box(1400, 150, 160, 520),
                                       rows=[""] * n, cols=["Σ"], digits=3, gutter=10),
                                lambda r, c: [(toks[j], float(att.weights[r, j])) for j in range(n)],
                                formula="Σ_j weight(i, j)", title=lambda r, c: f"row sum of “{toks[r]}”",
                                text=lambda r, c: f"the {n} weights of row “{toks[r]}”")],
            symbols=[Symbol(id="arrow", text="→", x=710, y=420)],
            counters=[counter(ctx, "v_all")])
        row = att.weights[focus]
        if p.stage == "weights":
            text = (f"Row by row: e^(score − row max), divided by the row's total. Every weight lies "
                    f"between 0 and 1 and each row adds up to {_fmt(float(sums[focus, 0]), 3)}.")
        else:
            text = (f"Masked cells: e^(−∞) = 0, so they get weight exactly 0. “{toks[focus]}” spreads "
                    f"its weight over {focus + 1} tokens; cells after it are {_fmt(float(row[-1]), 0)}.")
        body.notes.append(Note(id="about", box=_box(200, 685, 1200, 90), kind="weights", text=text))
        return body
    a = att.output  # (n, d_v)
    dog = p.stage == "dog"
    top, h = (120, 370) if dog else (200, 440)
    mid = top + h / 2 + 20
    body = FrameBody(
        tensors=[weights(tensor("weights", "weights", "weights", att.weights, _box(40, top, 520, h), rows=toks,
                                cols=toks, digits=2, heat=True, highlight=hl)),
                 derive_projection(tensor("V", "V", "value", s.v, _box(620, top, 440, h), rows=toks, max_cols=4,
                                          highlight=Highlight(rows=list(range(focus + 1))) if dog else Highlight()),
                                   s.x, s.w_v, x_name="x", w_name="W_V", row_names=toks),
                 derive_output(tensor("A", "A = weights · V", "output", a, _box(1120, top, 440, h), rows=toks,
                                      max_cols=4, highlight=hl),
                               att.weights, s.v, row_names=toks, key_names=toks)],
        symbols=[Symbol(id="times", text="×", x=590, y=mid), Symbol(id="equals", text="=", x=1090, y=mid)],
        counters=[counter(ctx, "mix")])
    if not dog:
        body.notes.append(Note(id="about", box=_box(200, 660, 1200, 100), kind="output", text=(
            "Each row of weights mixes the rows of V: output row i = Σ_j weight(i, j) × value row j. "
            "A blend of the values each token attends to.")))
        return body
    row = att.weights[focus]
    order = np.argsort(-row)[:3]
    parts = ", ".join(f"{_fmt(float(row[j]) * 100, 0)}% “{toks[j]}”" for j in order if row[j] > 0)
    body.widgets.append(Widget(id="dog-bars", type="weight-bars", kind="weights", box=_box(40, 505, 760, 265),
                               data={"title": f"weights of “{toks[focus]}”", "labels": toks,
                                     "values": [float(v) for v in row], "digits": 2, "highlight": focus,
                                     "sum": float(row.sum())}))
    body.notes.append(Note(id="about", box=_box(840, 560, 720, 130), kind="output", text=(
        f"“{toks[focus]}” becomes {parts}: mostly the adjective that describes it.")))
    return body


# ---------------------------------------------------------------------------------------------
# 12. The enriched token and W_O
# ---------------------------------------------------------------------------------------------


class OutputParams(_Params):
    stage: Literal["result", "short", "wo", "table", "stream"]


@CHAPTER.builder("story.output", OutputParams)
def output(ctx: BuildContext, p: OutputParams) -> FrameBody:
    """128 numbers per token; W_O brings them back to 7,168; the table is added to the stream."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    att = s.attention(causal=True)
    a = att.output  # (n, d_v)
    o = a @ s.w_o  # (n, d)
    d = s.x.shape[1]
    d_v = a.shape[1]

    def a_row(t: Tensor) -> Tensor:  # the focus token's row of A = weights · V
        return derive_output(t, row_of(att.weights, focus), s.v, row_names=[toks[focus]], key_names=toks)

    if p.stage in ("result", "short"):
        body = FrameBody(counters=[counter(ctx, "mix")])
        body.tensors.append(a_row(tensor("a-row", f"“{toks[focus]}” after attention", "output", row_of(a, focus),
                                         _box(60, 140, 1200, 110), rows=[toks[focus]], max_cols=12)))
        if p.stage == "result":
            body.notes.append(Note(id="about", box=_box(60, 300, 1100, 110), kind="output", text=(
                f"The enriched token: {d_v} numbers, mixed from the values it chose to read.")))
        else:
            body.tensors.append(embedded(tensor("x-row", f"“{toks[focus]}” on the stream", "input",
                                                row_of(s.x, focus), _box(60, 330, 1480, 110), rows=[toks[focus]],
                                                max_cols=18), row_of(s.x, focus), [toks[focus]]))
            body.notes.append(Note(id="about", box=_box(60, 500, 1100, 130), kind="output", text=(
                f"But the stream that runs through the model carries {fmt(d)} numbers per token. "
                f"The {d_v} numbers must be widened back to the stream's size.")))
        return body
    if p.stage == "wo":
        body = FrameBody(
            tensors=[a_row(tensor("a-row", "a", "output", row_of(a, focus), _box(40, 400, 380, 110),
                                  rows=[toks[focus]], max_cols=4)),
                     learned(tensor("W_O", "W_O", "weight", s.w_o, _box(500, 130, 600, 620), max_rows=11, max_cols=7),
                             s.w_o, "W_O"),
                     derive_projection(tensor("o-row", "a · W_O", "output", row_of(o, focus), _box(1180, 400, 380, 110),
                                              rows=[toks[focus]], max_cols=4),
                                       row_of(a, focus), s.w_o, x_name="a", w_name="W_O", row_names=[toks[focus]])],
            symbols=[Symbol(id="times", text="×", x=460, y=470), Symbol(id="equals", text="=", x=1140, y=470)],
            counters=[counter(ctx, "mix")])
        wc = _preset(ctx).weights_per_head("W_O")
        body.notes.append(Note(id="about", box=_box(40, 560, 420, 190), kind="weight", text=(
            f"The output matrix W_O: {fmt(d_v)} × {fmt(d)} = {fmt(wc.value)} weights, learned from random.")))
        return body
    hl = Highlight(rows=[focus])
    if p.stage == "table":
        return FrameBody(
            tensors=[derive_output(tensor("A", "A", "output", a, _box(40, 300, 420, 420), rows=toks, max_cols=3,
                                          highlight=hl), att.weights, s.v, row_names=toks, key_names=toks),
                     learned(tensor("W_O", "W_O", "weight", s.w_o, _box(520, 130, 520, 620), max_rows=11, max_cols=6),
                             s.w_o, "W_O"),
                     derive_projection(tensor("O", "O = A·W_O", "output", o, _box(1100, 300, 460, 420), rows=toks,
                                              max_cols=4, highlight=hl),
                                       a, s.w_o, x_name="a", w_name="W_O", row_names=toks)],
            symbols=[Symbol(id="times", text="×", x=490, y=510), Symbol(id="equals", text="=", x=1070, y=510)],
            counters=[counter(ctx, "w_o")])
    new_x = s.x + o  # (n, d): the residual connection
    return FrameBody(
        tensors=[embedded(tensor("X", "X (stream)", "input", s.x, _box(40, 250, 480, 420), rows=toks, max_cols=4),
                          s.x, toks),
                 derive_projection(tensor("O", "O", "output", o, _box(580, 250, 440, 420), rows=toks, max_cols=4),
                                   a, s.w_o, x_name="a", w_name="W_O", row_names=toks),
                 derive_sum(tensor("X2", "X + O", "input", new_x, _box(1080, 250, 480, 420), rows=toks, max_cols=4),
                            lambda r, c: [("x", float(s.x[r, c])), ("o", float(o[r, c]))], formula="X + O",
                            title=lambda r, c: f"stream of “{toks[r]}”, feature {c + 1:,} = x + o",
                            text=lambda r, c: "the input's cell plus the head's output cell (the residual)")],
        symbols=[Symbol(id="plus", text="+", x=550, y=460), Symbol(id="equals", text="=", x=1050, y=460)],
        notes=[Note(id="about", box=_box(240, 690, 1120, 80), kind="output", text=(
            f"O has the input's shape, {len(toks)} × {fmt(d)}, so it is simply added back onto the stream."))],
        counters=[counter(ctx, "w_o")])


# ---------------------------------------------------------------------------------------------
# 13. The whole operation, one head
# ---------------------------------------------------------------------------------------------


class WholeParams(_Params):
    stage: Literal["flow", "head"]


def flow_data(ctx: BuildContext) -> dict:
    """Shapes of every array of one head, read off the computed arrays."""
    s = ctx.story
    att = s.attention(causal=True)
    o = att.output @ s.w_o

    def shape(a: np.ndarray) -> list[int]:
        return [int(v) for v in a.shape]

    return {"X": shape(s.x), "W_Q": shape(s.w_q), "W_K": shape(s.w_k), "W_V": shape(s.w_v),
            "Q": shape(s.q), "K": shape(s.k), "V": shape(s.v), "map": shape(att.scores),
            "weights": shape(att.weights), "A": shape(att.output), "W_O": shape(s.w_o), "O": shape(o)}


@CHAPTER.builder("story.whole", WholeParams)
def whole(ctx: BuildContext, p: WholeParams) -> FrameBody:
    """Input → Q, K, V → map → weights → blend → W_O → output, on one screen; then one head's box."""
    data = flow_data(ctx) | {"head_box": p.stage == "head"}
    return FrameBody(widgets=[Widget(id="flow", type="flow", box=_box(40, 115, 1520, 655), data=data)],
                     counters=[counter(ctx, "w_o")])


# ---------------------------------------------------------------------------------------------
# 14. Many heads
# ---------------------------------------------------------------------------------------------


class HeadsParams(_Params):
    stage: Literal["many", "sum", "concat", "total"]


DEMO_HEADS = 3


def heads_check(ctx: BuildContext) -> dict:
    """Σ_i head_i · W_O,i against concat · W_O, computed by the engine on the story's sentence.

    Runs the designed head plus seeded random heads (DEMO_HEADS in all; 128 would need 3.7 GB of
    float64 weights for a fact that does not depend on the count).
    """
    s = ctx.story
    d, d_k = s.w_q.shape
    rng = np.random.default_rng(ctx.deck.story.seed + 1)
    extra = DEMO_HEADS - 1
    std = 1 / np.sqrt(d)
    w_q = np.hstack([s.w_q, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_k)
    w_k = np.hstack([s.w_k, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_k)
    w_v = np.hstack([s.w_v, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_v)
    w_o = np.vstack([s.w_o, rng.normal(0, 1 / np.sqrt(d_k), (extra * d_k, d))])  # (h·d_v, d)
    mh = multi_head(s.x, w_q, w_k, w_v, w_o, heads=DEMO_HEADS, causal=True)
    diff = float(np.max(np.abs(mh.sum_of_heads - mh.output)))
    return {"heads": DEMO_HEADS, "max_abs_difference": diff, "concat_shape": list(mh.concat.shape),
            "w_o_shape": list(w_o.shape), "output_shape": list(mh.output.shape)}


@CHAPTER.builder("story.heads", HeadsParams)
def many_heads(ctx: BuildContext, p: HeadsParams) -> FrameBody:
    """128 heads, each with its own matrices; their outputs summed = concat × one big W_O."""
    c = _preset(ctx)
    pr = c.preset
    n = len(ctx.tokens)
    data = {"heads": pr.heads, "d_model": pr.d_model, "d_k": pr.d_k, "d_v": pr.d_v, "n": n,
            "stage": p.stage, "per_head_weights": int(4 * c.weights_per_head("W_Q").value),
            "all_weights": int(c.weights_attention().value)}
    body = FrameBody(widgets=[Widget(id="heads", type="heads", box=_box(40, 115, 1000, 655), data=data)])
    if p.stage == "many":
        body.counters.append(counter(ctx, "w_o"))
        body.notes.append(Note(id="about", box=_box(1080, 180, 480, 330), kind="neutral", text=(
            f"A real layer runs {pr.heads} heads side by side, each with its own W_Q, W_K, W_V and slice of "
            f"W_O, so each can learn a different relationship. In all: {fmt(c.weights_attention().value)} "
            "weights per layer.")))
    elif p.stage == "sum":
        body.counters.append(counter(ctx, "heads"))
        body.notes.append(Note(id="about", box=_box(1080, 180, 480, 330), kind="output", text=(
            f"Each head returns a {n} × {fmt(pr.d_model)} table. The {pr.heads} tables are added (Σ) "
            "and the sum goes onto the stream.")))
    elif p.stage == "concat":
        chk = heads_check(ctx)
        body.counters.append(counter(ctx, "heads"))
        body.notes.append(Note(id="about", box=_box(1080, 150, 480, 420), kind="output", text=(
            f"Same thing, said differently: put the heads' {pr.d_v}-wide outputs side by side "
            f"({n} × {fmt(pr.heads * pr.d_v)}) and multiply once by the stacked W_O "
            f"({fmt(pr.heads * pr.d_v)} × {fmt(pr.d_model)}). Checked by the engine with "
            f"{chk['heads']} heads: the largest difference is {chk['max_abs_difference']:.1e}.")))
    else:
        total = c.flops_per_token()
        v = flop_counter(c, n, "per_token")
        body.counters.append(counter(ctx, "per_token"))
        proj = c.flops_projections()
        body.notes.append(Note(id="about", box=_box(1080, 130, 480, 560), kind="neutral", text=(
            f"Per token, one layer: {total.formula}. The projections W_Q, W_K, W_V, W_O cost "
            f"{fmt(proj.value)} ({proj.formula}); QKᵀ and weights × V add {fmt(total.per_n)} for every "
            f"token of context. At n = {n}: {fmt(v.value)} FLOPs. These are DeepSeek-V3.2's sizes; "
            "later chapters change them.")))
    return body


# ---------------------------------------------------------------------------------------------
# 15. Sources
# ---------------------------------------------------------------------------------------------

SOURCES = [
    ("Vaswani et al. 2017, Attention Is All You Need (arXiv:1706.03762)",
     "Queries, keys and values; scaled dot-product attention; multi-head attention; the causal mask."),
    ("DeepSeek-V3 report (arXiv:2412.19437) and DeepSeek-V3.2 (arXiv:2512.02556)",
     "The sizes used throughout: d = {d_model}, {heads} heads of {d_k}, {layers} layers, {max_positions} positions."),
    ("DeepSeek-V2 report (arXiv:2405.04434)",
     "Multi-head latent attention: the real, compressed form of these projections."),
    ("Kaplan et al. 2020 (arXiv:2001.08361)",
     "The FLOP convention of the counter: {flops_per_weight} FLOPs per multiply-add."),
]


@CHAPTER.builder("story.sources")
def sources(ctx: BuildContext, _p: _Params) -> FrameBody:
    """The papers the chapter stands on, with what each contributed."""
    body = FrameBody()
    figs = figures(ctx.deck)
    for i, (title, what) in enumerate(SOURCES):
        body.notes.append(Note(id=f"src{i}", box=_box(120, 130 + i * 160, 1360, 140), kind="neutral",
                               text=f"{title}. {fill(what, figs)}"))
    return body

