"""Slide "Softmax": scale the masked map by 1/√d_k, softmax each row (rows sum to 1, masked cells
exactly 0), then weights × V, the blend of values, and what the focus token ends up reading.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.formatting import count, number
from attention_talk.frames.context import BuildContext
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
from attention_talk.frames.model import Box, FrameBody, Highlight, Note, Tensor
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import Equation, causal_attention, mark, stages

GUTTER = 96  # the weights' row labels
TOP_WORDS = 3  # the "dog" note names the focus token's largest weights


def _blend_layout(top: float, h: float) -> Equation:
    """weights × V = A in a band ``h`` high from ``top``."""
    mid = top + h / 2 + 20
    return Equation(left=box(40, top, 520, h), middle=box(620, top, 440, h), right=box(1120, top, 440, h),
                    op=(590, mid), equals=(1090, mid))


SCALE = {"map": box(40, 150, 650, 520), "scaled": box(900, 150, 660, 520), "div": (795, 420),
         "note": box(300, 690, 1000, 80)}
SOFTMAX = {"scaled": box(40, 150, 620, 520), "weights": box(760, 150, 620, 520), "sums": box(1400, 150, 160, 520),
           "arrow": (710, 420), "note": box(200, 685, 1200, 90)}
BLEND = _blend_layout(200, 440)  # the blend alone, with a note below
DOG = _blend_layout(120, 370)  # the blend raised to make room for the focus token's weights below
NOTES = {"blend": box(200, 660, 1200, 100), "bars": box(40, 505, 760, 265), "dog": box(840, 560, 720, 130)}


class SoftmaxParams(Params):
    stage: Literal["scale", "weights", "zeros", "blend", "dog"]


def _scaled(ctx: BuildContext, area: Box) -> Tensor:
    """att.masked = Q·Kᵀ × 1/√d_k + M, the focus row highlighted."""
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    return derive_scores(tensor("scaled", f"scaled: ÷ √{count(s.q.shape[1])}", "mask", att.masked, area, rows=toks,
                                cols=toks, digits=2, heat=True, highlight=Highlight(rows=[ctx.focus])),
                         s.q, s.k, row_names=toks, col_names=toks, scale=att.scale, mask=att.mask)


def _softmaxed(ctx: BuildContext, t: Tensor) -> Tensor:
    """Each displayed weight derived as exp(s − row max) / Σ of its row of the scaled map."""
    return derive_weights(t, causal_attention(ctx).masked, row_names=ctx.tokens, col_names=ctx.tokens)


def _scale(ctx: BuildContext) -> FrameBody:
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    root = number(1 / att.scale, 2)
    masked_map = derive_scores(tensor("map", "masked map Q·Kᵀ + M", "mask", att.scores + att.mask, SCALE["map"],
                                      rows=toks, cols=toks, digits=1, heat=True,
                                      highlight=Highlight(rows=[ctx.focus])),
                               s.q, s.k, row_names=toks, col_names=toks, mask=att.mask)
    return FrameBody(
        tensors=[masked_map, _scaled(ctx, SCALE["scaled"])],
        symbols=[mark("div", f"÷ {root}", SCALE["div"], size=34)],
        notes=[Note(id="about", box=SCALE["note"], kind="scores", text=(
            f"Divide by √d_k = √{count(s.q.shape[1])} = {root} so the scores stay in a range where "
            "softmax still has useful slopes."))],
        counters=[counter(ctx, "v_all")])


def _row_sums(ctx: BuildContext) -> Tensor:
    """Each row of the weights added up: computed, not assumed to be 1."""
    toks, n = ctx.tokens, len(ctx.tokens)
    w = causal_attention(ctx).weights
    return derive_sum(tensor("sums", "row sum", "weights", w.sum(axis=1, keepdims=True), SOFTMAX["sums"],
                             rows=[""] * n, cols=["Σ"], digits=3, gutter=10),
                      lambda r, c: [(toks[j], float(w[r, j])) for j in range(n)],
                      formula="Σ_j weight(i, j)", title=lambda r, c: f"row sum of “{toks[r]}”",
                      text=lambda r, c: f"the {count(n)} weights of row “{toks[r]}”")


def _softmax(ctx: BuildContext, highlight: Highlight, text: str) -> FrameBody:
    """Scaled map → softmax weights → row sums, with ``highlight`` on the weights."""
    w = causal_attention(ctx).weights
    weights = _softmaxed(ctx, tensor("weights", "weights = softmax(row)", "weights", w, SOFTMAX["weights"],
                                     rows=ctx.tokens, cols=ctx.tokens, digits=2, heat=True, highlight=highlight,
                                     gutter=GUTTER))
    return FrameBody(tensors=[_scaled(ctx, SOFTMAX["scaled"]), weights, _row_sums(ctx)],
                     symbols=[mark("arrow", "→", SOFTMAX["arrow"])],
                     counters=[counter(ctx, "v_all")],
                     notes=[Note(id="about", box=SOFTMAX["note"], kind="weights", text=text)])


def _weights(ctx: BuildContext) -> FrameBody:
    sums = causal_attention(ctx).weights.sum(axis=1, keepdims=True)  # (n, 1), as in the sums column
    focus_sum = float(sums[ctx.focus, 0])
    return _softmax(ctx, Highlight(rows=[ctx.focus]), (
        f"Row by row: e^(score − row max), divided by the row's total. Every weight lies "
        f"between 0 and 1 and each row adds up to {number(focus_sum, 3)}."))


def _zeros(ctx: BuildContext) -> FrameBody:
    att, focus, n = causal_attention(ctx), ctx.focus, len(ctx.tokens)
    zero_cells = [(i, j) for i in range(n) for j in range(n) if att.mask[i, j] == -np.inf]
    return _softmax(ctx, Highlight(cells=zero_cells), (
        f"Masked cells: e^(−∞) = 0, so they get weight exactly 0. “{ctx.tokens[focus]}” spreads "
        f"its weight over {count(focus + 1)} tokens; cells after it are {number(float(att.weights[focus, -1]), 0)}."))


def _blend_body(ctx: BuildContext, at: Equation, v_rows: Highlight) -> FrameBody:
    """weights × V = A, the focus row highlighted; ``v_rows`` marks the values it may read."""
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    hl = Highlight(rows=[ctx.focus])
    return FrameBody(
        tensors=[_softmaxed(ctx, tensor("weights", "weights", "weights", att.weights, at.left, rows=toks,
                                        cols=toks, digits=2, heat=True, highlight=hl)),
                 derive_projection(tensor("V", "V", "value", s.v, at.middle, rows=toks, max_cols=4, highlight=v_rows),
                                   s.x, s.w_v, x_name="x", w_name="W_V", row_names=toks),
                 derive_output(tensor("A", "A = weights · V", "output", att.output, at.right, rows=toks,
                                      max_cols=4, highlight=hl),
                               att.weights, s.v, row_names=toks, key_names=toks)],
        symbols=at.signs(), counters=[counter(ctx, "mix")])


def _blend(ctx: BuildContext) -> FrameBody:
    body = _blend_body(ctx, BLEND, Highlight())
    body.notes.append(Note(id="about", box=NOTES["blend"], kind="output", text=(
        "Each row of weights mixes the rows of V: output row i = Σ_j weight(i, j) × value row j. "
        "A blend of the values each token attends to.")))
    return body


def _dog(ctx: BuildContext) -> FrameBody:
    toks, focus = ctx.tokens, ctx.focus
    body = _blend_body(ctx, DOG, Highlight(rows=list(range(focus + 1))))
    row = causal_attention(ctx).weights[focus]
    parts = ", ".join(f"{number(float(row[j]) * 100, 0)}% “{toks[j]}”" for j in np.argsort(-row)[:TOP_WORDS]
                      if row[j] > 0)
    body.widgets.append(widget("weight-bars", "dog-bars", NOTES["bars"], kind="weights", data={
        "title": f"weights of “{toks[focus]}”", "labels": toks, "values": [float(v) for v in row], "digits": 2,
        "highlight": focus, "sum": float(row.sum())}))
    body.notes.append(Note(id="about", box=NOTES["dog"], kind="output", text=(
        f"“{toks[focus]}” becomes {parts}: mostly the adjective that describes it.")))
    return body


STAGES = stages(SoftmaxParams, {"scale": _scale, "weights": _weights, "zeros": _zeros, "blend": _blend,
                                "dog": _dog})


@CHAPTER.builder("story.softmax", SoftmaxParams)
def softmax_step(ctx: BuildContext, p: SoftmaxParams) -> FrameBody:
    """Scale, softmax row by row (rows sum to 1, masked cells exactly 0), then weights × V."""
    return STAGES[p.stage](ctx)
