"""Section 1, from a word to a row of numbers (``walk.word``): text → tokens → ids → embedding rows,
the position signal, and the “bank” row before and after attention."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np

from attention_talk.engine.costs import costs
from attention_talk.formatting import number, vector
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Tensor, TensorPart
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import LEFT, box, columns, rows
from attention_talk.frames.kit.mechanisms import softmax_process
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import POSITION_STRENGTH, SENTENCE_RIVER, VOCAB, Sentence, embedding_table
from attention_talk.frames.walkthrough.shared import FEATS, band, bars, cards, sentences, to_right

_REAL = costs("deepseek-v3.2").preset  # the real model the talk quotes (cost model: sizes and sources)
REAL_VOCAB, REAL_WIDTH = _REAL.vocab, _REAL.d_model

_LOOKUP = columns(band(120, 450), [1, 1])
_POSITIONS = columns(band(130, 400), [700, 740])
_CONTEXT = rows(box(LEFT, 120, 820, 640), [1, 1], gap=50)
_MECH = columns(band(420, 340), [1, 1, 1.4], gap=40)  # under each of the three moves, its numbers for “bank”
LAYOUT = {
    "chain": band(130, 300), "ids": box(LEFT, 470, 900, 170), "honest": to_right(1000, 470, 200),
    "table": box(LEFT, 110, 620, 660), "table_note": box(740, 160, 780, 300),
    "lookup_river": _LOOKUP[0], "lookup_money": _LOOKUP[1], "same": band(600, 110),
    "positions": _POSITIONS[0], "x": _POSITIONS[1], "why": band(560, 130),
    "bankrow": box(LEFT, 125, 1480, 530), "read": box(160, 665, 1280, 90),
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
    chain = cards("chain", LAYOUT["chain"], [  # the bodies are the sentence's data, joined
        card("text", kind="input", sentence=SENTENCE_RIVER),
        card("tokens", tokens=" | ".join(river.tokens)),
        card("ids", ids=ids, vocab_size=len(VOCAB)),
        card("lookup", kind="input", bank_id=bank_id, row=vector(table[bank_id])),
    ], columns=4, arrows=True)
    honest = note("honest", LAYOUT["honest"], vocab_size=len(VOCAB), real_vocab=REAL_VOCAB)
    return FrameBody(widgets=[chain], notes=[honest], tensors=[_ids(river)])


def _ids(s: Sentence) -> Tensor:
    """Each token's id under it: the row number the lookup will fetch."""
    ids = np.array([s.ids], dtype=float)  # (1, n)
    t = tensor("ids", "token ids", "neutral", ids, LAYOUT["ids"], rows=["id"], cols=list(s.tokens), digits=0)
    return derive_copy(t, lambda r, c: (f"“{s.tokens[c]}” is entry {s.ids[c]} of the vocabulary", float(s.ids[c])),
                       formula="index in the vocabulary", title=lambda r, c: f"id of “{s.tokens[c]}”")


def embedding_rows(ids: Iterable[int]) -> list[TensorPart]:
    """Row i of a tensor is embedding row ``ids[i]`` (of E, of a lookup, of X): the player flies each
    row of E into the rows that look it up, and those into X."""
    return [TensorPart(identity=f"embedding {token_id}", rows=[i]) for i, token_id in enumerate(ids)]


def _table(ctx: BuildContext) -> FrameBody:
    table = embedding_table(ctx.deck.story.seed)
    et = tensor("E", "embedding table E", "input", table, LAYOUT["table"], rows=list(VOCAB), cols=FEATS,
                max_rows=12, max_cols=4, highlight=Highlight(rows=[VOCAB.index("bank")]),
                parts=embedding_rows(range(len(VOCAB))))
    derive_copy(et, lambda r, c: (
        "a parameter: learned in a real model; here a designed feature plus seeded noise",
        float(table[r, c])), formula="parameter", title=lambda r, c: f"E[{r}] (“{VOCAB[r]}”), {FEATS[c]}")
    row = note("row", LAYOUT["table_note"], "input", vocab_size=len(VOCAB), width=table.shape[1],
               real_vocab=REAL_VOCAB, real_width=REAL_WIDTH)
    return FrameBody(tensors=[et], notes=[row])


def _lookup_tensor(i: int, s: Sentence, where: str, name: str) -> Tensor:
    t = tensor(f"look{i}", f"E[ids], the {name} sentence", "input", s.lookup, LAYOUT[where],
               rows=list(s.tokens), cols=FEATS, max_cols=4, highlight=Highlight(rows=[s.index("bank")]),
               parts=embedding_rows(s.ids))
    return derive_copy(t, lambda r, c: (f"row {s.ids[r]} (“{s.tokens[r]}”) of E, column {c + 1}",
                                        float(s.lookup[r, c])),
                       formula="E[id]", title=lambda r, c: f"lookup: E[{s.ids[r]}], {FEATS[c]}")


def _lookup(ctx: BuildContext) -> FrameBody:
    river, money = sentences(ctx)
    bank = river.lookup[river.index("bank")]
    same = bool(np.array_equal(bank, money.lookup[money.index("bank")]))
    # the text picked by what the engine computed, so the slide cannot claim what is not true
    same_row = note("same", LAYOUT["same"], "input", key="same" if same else "rows-differ", also=("rows-differ",),
                    bank_id=VOCAB.index("bank"), row=vector(bank))
    return FrameBody(tensors=[_lookup_tensor(0, river, "lookup_river", "river"),
                              _lookup_tensor(1, money, "lookup_money", "cash")],
                     notes=[same_row])


def _positions(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    pos, d = river.positions, river.positions.shape[1]
    pt = tensor("P", f"positions: {d}-wide sinusoids × {POSITION_STRENGTH}", "neutral", pos,
                LAYOUT["positions"], rows=[f"{i + 1}" for i in range(len(river.tokens))], cols=[""] * d)
    derive_copy(pt, lambda r, c: (
        f"{POSITION_STRENGTH} × {'sin' if c % 2 == 0 else 'cos'}({r} / 10000^({2 * (c // 2)}/{d}))",
        float(pos[r, c])), formula=f"{POSITION_STRENGTH} · PE", title=lambda r, c: f"position {r + 1}, column {c + 1}")
    xt = tensor("X", "X = E[ids] + P", "input", river.x, LAYOUT["x"], rows=list(river.tokens), cols=FEATS,
                highlight=Highlight(rows=[river.index("bank")]), parts=embedding_rows(river.ids))
    derive_copy(xt, lambda r, c: (f"E[{river.ids[r]}] = {number(river.lookup[r, c], 3)} plus position "
                                  f"{r + 1}: {number(pos[r, c], 3)}", float(river.x[r, c])),
                formula="E[ids] + P", title=lambda r, c: f"x({river.tokens[r]}), {FEATS[c]}")
    return FrameBody(tensors=[pt, xt], notes=[note("why", LAYOUT["why"])])


def _weights(ctx: BuildContext) -> FrameBody:
    """The first softmax of the chapter, as the ``softmax`` kind at its end: the row of “bank”
    (the river sentence's head) divided by its sum, every weight a share of one stacked bar of 1."""
    river, _ = sentences(ctx)
    i = river.index("bank")
    data = softmax_process(river.attention.masked[i], river.tokens, stage="divide",
                           title="the weights of “bank”, 1 × " + str(len(river.tokens)), fit="one")
    w = np.asarray(data.weights)
    top = [river.tokens[k] for k in np.argsort(w)[::-1][:3]]
    read = note("read", LAYOUT["read"], "weights", total=number(w.sum(), 3), first=top[0], second=top[1],
                third=top[2])
    return FrameBody(widgets=[widget("softmax", "softmax-bank", LAYOUT["bankrow"], data, kind="weights")],
                     notes=[read])


def _bank_in_context(i: int, s: Sentence, where: str) -> Tensor:
    """The “bank” row of ``s``: its input, the attention update, and their sum (the residual path)."""
    k = s.index("bank")
    rows = np.vstack([s.x[k], s.update[k], s.contextual[k]])  # (3, 4)
    t = tensor(f"ctx{i}", f"“bank” in “{' '.join(s.tokens)}”", "output", rows, LAYOUT[where],
               rows=["input x", "update", "x + update"], cols=FEATS)
    how = [lambda c: f"input row of “bank”, {FEATS[c]}",
           lambda c: f"attention update Z·W_O of “bank”, {FEATS[c]}",
           lambda c: f"input {number(s.x[k, c], 3)} + attention update {number(s.update[k, c], 3)} (residual path)"]
    return derive_copy(t, lambda r, c: (how[r](c), float(rows[r, c])), formula="x + Z·W_O",
                       title=lambda r, c: f"“bank”, {FEATS[c]}")


def _context(ctx: BuildContext) -> FrameBody:
    river, money = sentences(ctx)
    rw, rm = river.contextual[river.index("bank")], money.contextual[money.index("bank")]
    diff = note("diff", LAYOUT["diff"], "output", river_water=number(rw[0], 2), river_money=number(rw[1], 2),
                cash_water=number(rm[0], 2), cash_money=number(rm[1], 2))
    return FrameBody(tensors=[_bank_in_context(0, river, "context_river"),
                              _bank_in_context(1, money, "context_money")], notes=[diff])


def _mechanism(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    a, b, toks = river.attention, river.index("bank"), list(river.tokens)
    row = tensor("mrow", "new row of “bank”", "output", np.vstack([river.x[b], river.contextual[b]]),
                 LAYOUT["m_row"], rows=["x", "x + upd"], cols=FEATS, digits=2)
    derive_copy(row, lambda r, c: ((f"input row of “bank”, {FEATS[c]}", float(river.x[b, c])) if r == 0 else
                                   (f"input {number(river.x[b, c], 3)} + update {number(river.update[b, c], 3)}",
                                    float(river.contextual[b, c]))),
                formula="x + Z·W_O", title=lambda r, c: f"“bank”, {FEATS[c]}")
    return FrameBody(tensors=[row], widgets=[
        bars("m_s", LAYOUT["m_scores"], "“bank”'s scores q·k / √d_k", toks, a.scaled[b], kind="scores", digits=2,
             show_sum=False, scale_max=None),
        bars("m_w", LAYOUT["m_weights"], "its weights A, sum 1", toks, a.weights[b], digits=2, show_sum=False),
        cards("mech", LAYOUT["mech"], [card("match", kind="scores"), card("mix", kind="weights"),
                                       card("new-row", kind="output")], columns=3, arrows=True)])


STAGES = {"chain": _chain, "table": _table, "lookup": _lookup, "positions": _positions, "weights": _weights,
          "context": _context, "mechanism": _mechanism}


@CHAPTER.builder("walk.word", WordParams, notes=("honest", "row", "same", "rows-differ", "why", "read", "diff"),
                 cards=("text", "tokens", "ids", "lookup", "match", "mix", "new-row"))
def word(ctx: BuildContext, p: WordParams) -> FrameBody:
    """Text → tokens → ids → embedding rows; positions; the bank row before and after attention."""
    return STAGES[p.stage](ctx)
