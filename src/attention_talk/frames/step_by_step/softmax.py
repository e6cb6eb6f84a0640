"""Slide "Softmax": scale the masked map by 1/√d_k, then every row (A: rows sum to 1, masked cells
exactly 0), then Z = A·V, the blend of values, and what the focus token ends up reading. Between the
scaling and every row, the deck plays softmax of the focus row as a process (``story.softmax-process``,
mechanisms.py): the row leaves the scaled map as ``ROW_IDENTITY`` and comes back as the row of A.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Box, FrameBody, Highlight, Tensor, TensorPart
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import (
    derive_output,
    derive_projection,
    derive_scores,
    derive_sum,
    derive_weights,
)
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import (
    TABLE_COLS,
    Equation,
    causal_attention,
    mark,
    reveal_row,
    stages,
)

GUTTER = 96  # the weights' row labels
TOP_WORDS = 3  # the "dog" note names the focus token's largest weights


def _blend_layout(top: float, h: float) -> Equation:
    """A × V = Z in a band ``h`` high from ``top``."""
    mid = top + h / 2 + 20
    return Equation(left=box(60, top, 540, h), middle=box(650, top, 400, h), right=box(1110, top, 430, h),
                    op=(625, mid), equals=(1080, mid))


# Every box ends above the caption band (y 760); every number is drawn at 20 stage units or more.
# The slide's note keeps one box, under the matrices, on every step.
NOTE = box(200, 645, 1200, 110)
SCALE = {"map": box(60, 150, 650, 480), "scaled": box(900, 150, 640, 480), "div": (795, 400)}
ROWS = {"weights": box(60, 150, 740, 480), "sums": box(830, 150, 150, 480)}
BLEND = _blend_layout(150, 460)  # A × V = Z, the note below


class SoftmaxParams(Params):
    stage: Literal["scale", "weights", "zeros", "blend", "dog"]


# The focus row as one object: a row of the scaled map, the softmax process's bars (the deck gives
# story.softmax-process this identity), then a row of A. The first leg flies (12/1 → 12/2); the last
# does not yet: within a slide the player removes a leaving widget at once, so it has no source.
ROW_IDENTITY = "softmax-row"


def _as_row(t: Tensor, ctx: BuildContext) -> Tensor:
    return t.model_copy(update={"parts": [TensorPart(identity=ROW_IDENTITY, rows=[ctx.focus])]})


def _scaled(ctx: BuildContext, area: Box) -> Tensor:
    """att.masked = Q·Kᵀ × 1/√d_k + M, only the focus row's numbers shown."""
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    return reveal_row(derive_scores(tensor("scaled", f"scaled: ÷ √{count(s.q.shape[1])}", "mask", att.masked, area,
                                           rows=toks, cols=toks, digits=2, heat=True),
                                    s.q, s.k, row_names=toks, col_names=toks, scale=att.scale, mask=att.mask),
                      ctx.focus)


def _weights_tensor(ctx: BuildContext, area: Box, highlight: Highlight, label: str = "A = softmax") -> Tensor:
    """A, each displayed weight derived as exp(s − row max) / Σ of its row of the scaled map."""
    w = causal_attention(ctx).weights
    t = tensor("weights", label, "weights", w, area, rows=ctx.tokens, cols=ctx.tokens, digits=2, heat=True,
               highlight=highlight, gutter=GUTTER)
    return derive_weights(t, causal_attention(ctx).masked, row_names=ctx.tokens, col_names=ctx.tokens)


def _scale(ctx: BuildContext) -> FrameBody:
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    att = causal_attention(ctx)
    root = number(1 / att.scale, 2)
    masked_map = derive_scores(tensor("map", "masked map Q·Kᵀ + M", "mask", att.scores + att.mask, SCALE["map"],
                                      rows=toks, cols=toks, digits=1, heat=True),
                               s.q, s.k, row_names=toks, col_names=toks, mask=att.mask)
    best = int(np.argmax(att.scores[focus, : focus + 1]))
    return FrameBody(
        tensors=[reveal_row(masked_map, focus), _as_row(_scaled(ctx, SCALE["scaled"]), ctx)],
        symbols=[mark("div", f"÷ {root}", SCALE["div"], size=34)],
        notes=[note("about", NOTE, "scores", width=s.q.shape[1], root=root,
                    score=number(float(att.scores[focus, best]), 1), scaled=number(float(att.masked[focus, best]), 2))],
        counters=[counter(ctx, "v_all")])


def _row_sums(ctx: BuildContext) -> Tensor:
    """Each row of the weights added up: computed, not assumed to be 1."""
    toks, n = ctx.tokens, len(ctx.tokens)
    w = causal_attention(ctx).weights
    return derive_sum(tensor("sums", "row sum", "weights", w.sum(axis=1, keepdims=True), ROWS["sums"],
                             rows=[""] * n, cols=["Σ"], digits=3, gutter=10),
                      lambda r, c: [(toks[j], float(w[r, j])) for j in range(n)],
                      formula="Σ_j A(i, j)", title=lambda r, c: f"row sum of “{toks[r]}”",
                      text=lambda r, c: f"the {count(n)} weights of row “{toks[r]}”")


def _all_rows(ctx: BuildContext, highlight: Highlight, **figures: object) -> FrameBody:
    """A for every row, with the computed row sums beside it."""
    return FrameBody(tensors=[_as_row(_weights_tensor(ctx, ROWS["weights"], highlight), ctx), _row_sums(ctx)],
                     counters=[counter(ctx, "v_all")],
                     notes=[note("about", NOTE, "weights", **figures)])


def _weights(ctx: BuildContext) -> FrameBody:
    sums = causal_attention(ctx).weights.sum(axis=1, keepdims=True)  # (n, 1), as in the sums column
    return _all_rows(ctx, Highlight(), row_sum=number(float(sums[ctx.focus, 0]), 3))


def _zeros(ctx: BuildContext) -> FrameBody:
    att, focus, n = causal_attention(ctx), ctx.focus, len(ctx.tokens)
    zero_cells = [(i, j) for i in range(n) for j in range(n) if att.mask[i, j] == -np.inf]
    return _all_rows(ctx, Highlight(cells=zero_cells), word=ctx.tokens[focus], spread=focus + 1,
                     after=number(float(att.weights[focus, -1]), 0))


def _blend_body(ctx: BuildContext, at: Equation, v_rows: Highlight) -> FrameBody:
    """A × V = Z; the focus row's numbers of A and Z shown, ``v_rows`` marks the values it may read."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    att = causal_attention(ctx)
    z = derive_output(tensor("Z", "Z = A·V", "output", att.output, at.right, rows=toks, max_cols=TABLE_COLS),
                      att.weights, s.v, row_names=toks, key_names=toks)
    return FrameBody(
        tensors=[derive_projection(tensor("V", "V", "value", s.v, at.middle, rows=toks, max_cols=TABLE_COLS,
                                          highlight=v_rows),
                                   s.x, s.w_v, x_name="x", w_name="W_V", row_names=toks),
                 reveal_row(z, focus)],
        symbols=at.signs(), counters=[counter(ctx, "mix")])


def _blend(ctx: BuildContext) -> FrameBody:
    body = _blend_body(ctx, BLEND, Highlight())
    body.tensors.insert(0, reveal_row(_weights_tensor(ctx, BLEND.left, Highlight(), "A"), ctx.focus))
    body.notes.append(note("about", NOTE, "output", word=ctx.tokens[ctx.focus]))
    return body


def _dog(ctx: BuildContext) -> FrameBody:
    toks, focus = ctx.tokens, ctx.focus
    body = _blend_body(ctx, BLEND, Highlight(rows=list(range(focus + 1))))
    row = causal_attention(ctx).weights[focus]
    parts = ", ".join(f"{number(float(row[j]) * 100, 0)}% “{toks[j]}”" for j in np.argsort(-row)[:TOP_WORDS]
                      if row[j] > 0)
    body.widgets.append(widget("weight-bars", "dog-bars", BLEND.left, kind="weights", data={
        "title": f"A: the weights of “{toks[focus]}”", "labels": toks, "values": [float(v) for v in row],
        "digits": 2, "highlight": focus, "sum": float(row.sum()), "scale_max": 1.0,
        "future": [j > focus for j in range(len(toks))]}))  # the mask's zeros: the masked look
    body.notes.append(note("about", NOTE, "output", word=toks[focus], parts=parts))
    return body


STAGES = stages(SoftmaxParams, {"scale": _scale, "weights": _weights, "zeros": _zeros,
                                "blend": _blend, "dog": _dog})


@CHAPTER.builder("story.softmax", SoftmaxParams, notes=("about",))
def softmax_step(ctx: BuildContext, p: SoftmaxParams) -> FrameBody:
    """Scale, softmax row by row (A: rows sum to 1, masked cells exactly 0), then Z = A·V."""
    return STAGES[p.stage](ctx)
