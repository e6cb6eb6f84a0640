"""Slide "The enriched token": the focus token after attention (z, d_v numbers), W_O widening it back
to the stream's d, the whole table Z·W_O = O, and O added onto the stream (the residual).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from attention_talk.engine import Attention
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Box, FrameBody, Highlight, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_output, derive_projection, derive_sum
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import (
    MATRIX_COLS,
    MATRIX_ROWS,
    ROW_H,
    TABLE_COLS,
    Equation,
    causal_attention,
    embedded,
    hide_numbers,
    learned,
    preset,
    reveal_row,
    row_of,
    stages,
)

# Z (every token's blend, the focus row's numbers shown) on the left, then the stream X beside it,
# wider; the slide's note keeps one box, lower right, under the row z·W_O of the next step.
LAYOUT = {
    "Z": box(60, 130, 700, 560), "X": box(820, 130, 720, 380), "note": box(1060, 560, 480, 190),
    "stream-note": box(200, 630, 1200, 120),
}
ROW_WO = Equation(left=box(60, 400, 360, ROW_H), middle=box(500, 130, 480, 620), right=box(1060, 400, 480, ROW_H),
                  op=(450, 470), equals=(1020, 470))  # z · W_O = o, the focus token
TABLE_WO = Equation(left=box(60, 300, 380, 420), middle=ROW_WO.middle, right=box(1060, 300, 480, 420),
                    op=(470, 510), equals=(1020, 510))  # Z · W_O = O, every token; W_O stays put
STREAM = Equation(left=box(60, 150, 460, 440), middle=box(580, 150, 440, 440), right=box(1080, 150, 460, 440),
                  op=(550, 406), equals=(1050, 406))  # X + O = the new stream, its note below


class OutputParams(Params):
    stage: Literal["result", "short", "wo", "table", "stream"]


@dataclass(frozen=True)
class _Head:
    """One head's arrays for the story: Z = A·V (n, d_v) and O = Z·W_O (n, d)."""

    att: Attention
    z: np.ndarray
    o: np.ndarray

    @classmethod
    def of(cls, ctx: BuildContext) -> _Head:
        att = causal_attention(ctx)
        return cls(att, att.output, att.output @ ctx.story.w_o)


def _z_row(ctx: BuildContext, head: _Head, label: str, area: Box, max_cols: int) -> Tensor:
    """The focus token's row z of Z = A·V."""
    tok = ctx.tokens[ctx.focus]
    return derive_output(tensor("z-row", label, "output", row_of(head.z, ctx.focus), area, rows=[tok],
                                max_cols=max_cols),
                         row_of(head.att.weights, ctx.focus), ctx.story.v, row_names=[tok], key_names=ctx.tokens)


def _w_o(ctx: BuildContext, area: Box, max_cols: int) -> Tensor:
    w_o = ctx.story.w_o
    return learned(tensor("W_O", "W_O", "weight", w_o, area, max_rows=MATRIX_ROWS, max_cols=max_cols), w_o, "W_O")


def _enriched(ctx: BuildContext) -> FrameBody:
    """Z = A·V as the softmax slide left it, its focus row's numbers shown: what attention made."""
    head, toks = _Head.of(ctx), ctx.tokens
    z = derive_output(tensor("Z", "Z = A·V", "output", head.z, LAYOUT["Z"], rows=toks, max_cols=5,
                             highlight=Highlight(rows=[ctx.focus])),
                      head.att.weights, ctx.story.v, row_names=toks, key_names=toks)
    return FrameBody(counters=[counter(ctx, "mix")], tensors=[reveal_row(z, ctx.focus)])


def _result(ctx: BuildContext) -> FrameBody:
    body = _enriched(ctx)
    body.notes.append(note("about", LAYOUT["note"], "output", width=ctx.story.v.shape[1]))
    return body


def _short(ctx: BuildContext) -> FrameBody:
    """Beside Z, the stream X it must join: the same rows, far wider."""
    s, toks = ctx.story, ctx.tokens
    body = _enriched(ctx)
    x = embedded(tensor("X", "the stream X", "input", s.x, LAYOUT["X"], rows=toks, max_cols=5,
                        highlight=Highlight(rows=[ctx.focus])), s.x, toks)
    body.tensors.append(reveal_row(x, ctx.focus))
    body.notes.append(note("about", LAYOUT["note"], "output", stream=s.x.shape[1], width=s.v.shape[1]))
    return body


def _wo(ctx: BuildContext) -> FrameBody:
    head, tok, focus, at = _Head.of(ctx), ctx.tokens[ctx.focus], ctx.focus, ROW_WO
    o_row = derive_projection(tensor("o-row", "z·W_O", "output", row_of(head.o, focus), at.right, rows=[tok],
                                     max_cols=TABLE_COLS),
                              row_of(head.z, focus), ctx.story.w_o, x_name="z", w_name="W_O", row_names=[tok])
    wc = preset(ctx).weights_per_head("W_O")
    d_v, d = ctx.story.w_o.shape
    return FrameBody(
        tensors=[_z_row(ctx, head, "z", at.left, TABLE_COLS), _w_o(ctx, at.middle, MATRIX_COLS), o_row],
        symbols=at.signs(), counters=[counter(ctx, "mix")],
        notes=[note("about", LAYOUT["note"], "weight", rows=d_v, cols=d, weights=int(wc.value))])


def _o_table(ctx: BuildContext, head: _Head, label: str, area: Box, highlight: Highlight | None = None) -> Tensor:
    """O = Z·W_O for every token."""
    return derive_projection(tensor("O", label, "output", head.o, area, rows=ctx.tokens, max_cols=TABLE_COLS,
                                    highlight=highlight),
                             head.z, ctx.story.w_o, x_name="z", w_name="W_O", row_names=ctx.tokens)


def _table(ctx: BuildContext) -> FrameBody:
    head, toks, at = _Head.of(ctx), ctx.tokens, TABLE_WO
    hl = Highlight(rows=[ctx.focus])
    z = derive_output(tensor("Z", "Z", "output", head.z, at.left, rows=toks, max_cols=TABLE_COLS, highlight=hl),
                      head.att.weights, ctx.story.v, row_names=toks, key_names=toks)
    return FrameBody(tensors=[reveal_row(z, ctx.focus), hide_numbers(_w_o(ctx, at.middle, TABLE_COLS)),
                              _o_table(ctx, head, "O = Z·W_O", at.right, hl)],
                     symbols=at.signs(), counters=[counter(ctx, "w_o")])


def _stream(ctx: BuildContext) -> FrameBody:
    """The residual connection: O has the stream's shape and is added onto it."""
    s, toks, head, at = ctx.story, ctx.tokens, _Head.of(ctx), STREAM
    new_x = s.x + head.o  # (n, d)
    x2 = derive_sum(tensor("X2", "X + O", "input", new_x, at.right, rows=toks, max_cols=TABLE_COLS),
                    lambda r, c: [("x", float(s.x[r, c])), ("o", float(head.o[r, c]))], formula="X + O",
                    title=lambda r, c: f"stream of “{toks[r]}”, feature {count(c + 1)} = x + o",
                    text=lambda r, c: "the input's cell plus the head's output cell (the residual)")
    return FrameBody(
        tensors=[reveal_row(embedded(tensor("X", "X (stream)", "input", s.x, at.left, rows=toks, max_cols=TABLE_COLS),
                                     s.x, toks), ctx.focus),
                 reveal_row(_o_table(ctx, head, "O", at.middle), ctx.focus), x2],
        symbols=at.signs("plus", "+"),
        notes=[note("about", LAYOUT["stream-note"], "output", tokens=len(toks), width=s.x.shape[1])],
        counters=[counter(ctx, "w_o")])


STAGES = stages(OutputParams, {"result": _result, "short": _short, "wo": _wo, "table": _table, "stream": _stream})


@CHAPTER.builder("story.output", OutputParams, notes=("about",))
def output(ctx: BuildContext, p: OutputParams) -> FrameBody:
    """128 numbers per token; W_O brings them back to 7,168; the table is added to the stream."""
    return STAGES[p.stage](ctx)
