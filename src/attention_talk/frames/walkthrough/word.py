"""Section 1, from a word to a row of numbers (``walk.word``): text → tokens → ids → embedding rows,
the position signal, and the “bank” row before and after attention."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.costs import costs
from attention_talk.formatting import count, number, vector
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Note, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import LEFT, box, columns, rows
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import POSITION_STRENGTH, SENTENCE_RIVER, VOCAB, Sentence, embedding_table
from attention_talk.frames.walkthrough.shared import FEATS, band, bars, cards, sentences, to_right

_REAL = costs("deepseek-v3.2").preset  # the real model the talk quotes (cost model: sizes and sources)
REAL_VOCAB, REAL_WIDTH = _REAL.vocab, _REAL.d_model

_LOOKUP = columns(band(120, 450), [1, 1])
_POSITIONS = columns(band(130, 400), [700, 740])
_CONTEXT = rows(box(LEFT, 140, 820, 530), [1, 1], gap=70)
_MECH = columns(band(420, 340), [1, 1, 1], gap=40)  # under each of the three moves, its numbers for “bank”
LAYOUT = {
    "chain": band(150, 330), "honest": band(520, 150),
    "table": box(LEFT, 110, 620, 660), "table_note": box(740, 160, 780, 300),
    "lookup_river": _LOOKUP[0], "lookup_money": _LOOKUP[1], "same": band(600, 110),
    "positions": _POSITIONS[0], "x": _POSITIONS[1], "why": band(560, 130),
    "bankrow": box(LEFT, 130, 900, 600), "read": to_right(1000, 160, 330),
    "context_river": _CONTEXT[0], "context_money": _CONTEXT[1], "diff": to_right(940, 200, 330),
    "mech": band(120, 250), "m_scores": _MECH[0], "m_weights": _MECH[1], "m_row": _MECH[2],
}


class WordParams(Params):
    stage: Literal["chain", "table", "lookup", "positions", "weights", "context", "mechanism"]


def _chain(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    table = embedding_table(ctx.deck.story.seed)
    bank_id = VOCAB.index("bank")
    ids = ", ".join(str(i) for i in river.ids)
    chain = cards("chain", LAYOUT["chain"], [
        {"title": "text", "body": SENTENCE_RIVER, "kind": "input"},
        {"title": "tokens", "body": " | ".join(river.tokens), "tag": "here one token = one word"},
        {"title": "token ids", "body": ids, "tag": f"index in a {len(VOCAB)}-word vocabulary"},
        {"title": "lookup", "body": f"E[{bank_id}] = {vector(table[bank_id])}", "kind": "input",
         "tag": "the row of “bank”"},
    ], columns=4, arrows=True)
    honest = Note(id="honest", box=LAYOUT["honest"], text=(
        f"Our toy tokenizer splits on spaces and numbers {len(VOCAB)} words in order. Real "
        f"tokenizers cut text into sub-word pieces from a fixed vocabulary: DeepSeek-V3.2's holds "
        f"{count(REAL_VOCAB)} pieces. An id is a row number, not a quantity."))
    return FrameBody(widgets=[chain], notes=[honest])


def _table(ctx: BuildContext) -> FrameBody:
    table = embedding_table(ctx.deck.story.seed)
    et = tensor("E", "embedding table E", "input", table, LAYOUT["table"], rows=list(VOCAB), cols=FEATS,
                max_rows=12, max_cols=4, highlight=Highlight(rows=[VOCAB.index("bank")]))
    derive_copy(et, lambda r, c: (
        "a parameter: learned in a real model; here a designed feature plus seeded noise",
        float(table[r, c])), formula="parameter", title=lambda r, c: f"E[{r}] (“{VOCAB[r]}”), {FEATS[c]}")
    note = Note(id="row", box=LAYOUT["table_note"], kind="input", text=(
        f"One learned row per vocabulary entry: {len(VOCAB)} × {table.shape[1]} here. "
        f"Real tables are far wider: DeepSeek-V3.2 has {count(REAL_VOCAB)} rows of {count(REAL_WIDTH)} "
        f"numbers. Our four columns have names only because we designed them; learned columns "
        f"have none."))
    return FrameBody(tensors=[et], notes=[note])


def _lookup_tensor(i: int, s: Sentence, where: str) -> Tensor:
    t = tensor(f"look{i}", f"E[ids] · “{' '.join(s.tokens)}”", "input", s.lookup, LAYOUT[where],
               rows=list(s.tokens), cols=FEATS, max_cols=4, highlight=Highlight(rows=[s.index("bank")]))
    return derive_copy(t, lambda r, c: (f"row {s.ids[r]} (“{s.tokens[r]}”) of E, column {c + 1}",
                                        float(s.lookup[r, c])),
                       formula="E[id]", title=lambda r, c: f"lookup: E[{s.ids[r]}], {FEATS[c]}")


def _lookup(ctx: BuildContext) -> FrameBody:
    river, money = sentences(ctx)
    bank = river.lookup[river.index("bank")]
    same = bool(np.array_equal(bank, money.lookup[money.index("bank")]))
    note = Note(id="same", box=LAYOUT["same"], kind="input", text=(
        f"Both “bank” rows are E[{VOCAB.index('bank')}] = {vector(bank)}: "
        f"{'identical' if same else 'different'}. The lookup cannot know which bank is meant."))
    return FrameBody(tensors=[_lookup_tensor(0, river, "lookup_river"), _lookup_tensor(1, money, "lookup_money")],
                     notes=[note])


def _positions(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    pos, d = river.positions, river.positions.shape[1]
    pt = tensor("P", f"positions: {d}-wide sinusoids × {POSITION_STRENGTH}", "neutral", pos,
                LAYOUT["positions"], rows=[f"{i + 1}" for i in range(len(river.tokens))], cols=[""] * d)
    derive_copy(pt, lambda r, c: (
        f"{POSITION_STRENGTH} × {'sin' if c % 2 == 0 else 'cos'}({r} / 10000^({2 * (c // 2)}/{d}))",
        float(pos[r, c])), formula=f"{POSITION_STRENGTH} · PE", title=lambda r, c: f"position {r + 1}, column {c + 1}")
    xt = tensor("X", "X = E[ids] + P", "input", river.x, LAYOUT["x"], rows=list(river.tokens), cols=FEATS,
                highlight=Highlight(rows=[river.index("bank")]))
    derive_copy(xt, lambda r, c: (f"E[{river.ids[r]}] = {number(river.lookup[r, c], 3)} plus position "
                                  f"{r + 1}: {number(pos[r, c], 3)}", float(river.x[r, c])),
                formula="E[ids] + P", title=lambda r, c: f"x({river.tokens[r]}), {FEATS[c]}")
    why = Note(id="why", box=LAYOUT["why"], text=(
        "Attention on its own ignores order: shuffle the tokens and each one gets the same "
        "mix. Adding a position signal to each row lets “river bank” differ from “bank river”."))
    return FrameBody(tensors=[pt, xt], notes=[why])


def _weights(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    w = river.attention.weights[river.index("bank")]
    row = bars("bankrow", LAYOUT["bankrow"], f"attention weights of “bank” · shape 1 × {len(w)}",
               list(river.tokens), w, highlight=int(np.argsort(w)[-2]))
    top = [river.tokens[i] for i in np.argsort(w)[::-1][:3]]
    note = Note(id="read", box=LAYOUT["read"], kind="weights", text=(
        f"One coefficient per token of the sentence, from softmax, so they add up to "
        f"{number(w.sum(), 3)}. The largest go to “{top[0]}”, “{top[1]}” and “{top[2]}”."))
    return FrameBody(widgets=[row], notes=[note])


def _bank_in_context(i: int, s: Sentence, where: str) -> Tensor:
    """The “bank” row of ``s`` before and after the residual update."""
    k = s.index("bank")
    t = tensor(f"ctx{i}", f"“bank” in “{' '.join(s.tokens)}”", "output", np.vstack([s.x[k], s.contextual[k]]),
               LAYOUT[where], rows=["input x", "x + update"], cols=FEATS)
    upd = s.update[k]
    return derive_copy(t, lambda r, c: (
        (f"input row of “bank”, {FEATS[c]}", float(s.x[k, c])) if r == 0 else
        (f"input {number(s.x[k, c], 3)} + attention update {number(upd[c], 3)} (residual path)",
         float(s.contextual[k, c]))), formula="x + Z·W_O", title=lambda r, c: f"“bank”, {FEATS[c]}")


def _context(ctx: BuildContext) -> FrameBody:
    river, money = sentences(ctx)
    rw, rm = river.contextual[river.index("bank")], money.contextual[money.index("bank")]
    note = Note(id="diff", box=LAYOUT["diff"], kind="output", text=(
        f"Same start, different result. After attention, “bank” by the river has water "
        f"{number(rw[0], 2)} vs money {number(rw[1], 2)}; at the cash desk, water {number(rm[0], 2)} vs "
        f"money {number(rm[1], 2)}."))
    return FrameBody(tensors=[_bank_in_context(0, river, "context_river"),
                              _bank_in_context(1, money, "context_money")], notes=[note])


def _mechanism(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    a, b, toks = river.attention, river.index("bank"), list(river.tokens)
    row = tensor("mrow", "“bank”: x, then x + update", "output", np.vstack([river.x[b], river.contextual[b]]),
                 LAYOUT["m_row"], rows=["x", "x + upd."], cols=FEATS, digits=2)
    derive_copy(row, lambda r, c: ((f"input row of “bank”, {FEATS[c]}", float(river.x[b, c])) if r == 0 else
                                   (f"input {number(river.x[b, c], 3)} + update {number(river.update[b, c], 3)}",
                                    float(river.contextual[b, c]))),
                formula="x + Z·W_O", title=lambda r, c: f"“bank”, {FEATS[c]}")
    return FrameBody(tensors=[row], widgets=[
        bars("m_s", LAYOUT["m_scores"], "“bank”'s scores q·k / √d_k", toks, a.scaled[b], kind="scores", digits=2,
             show_sum=False, scale_max=None),
        bars("m_w", LAYOUT["m_weights"], "its weights A, sum 1", toks, a.weights[b], digits=2, show_sum=False),
        cards("mech", LAYOUT["mech"], [
        {"title": "1 · match", "body": "the position being updated is compared with every other position",
         "kind": "scores"},
        {"title": "2 · weigh and mix", "body": "the matches become weights that sum to one; the value rows "
                                               "are averaged with them", "kind": "weights"},
        {"title": "3 · new row", "body": "the result is a row that now depends on the context", "kind": "output"},
    ], columns=3, arrows=True)])


STAGES = {"chain": _chain, "table": _table, "lookup": _lookup, "positions": _positions, "weights": _weights,
          "context": _context, "mechanism": _mechanism}


@CHAPTER.builder("walk.word", WordParams)
def word(ctx: BuildContext, p: WordParams) -> FrameBody:
    """Text → tokens → ids → embedding rows; positions; the bank row before and after attention."""
    return STAGES[p.stage](ctx)
