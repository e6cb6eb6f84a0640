"""Slide "The whole operation": input → Q, K, V → map → weights → blend → W_O → output on one
screen (the shapes read off the computed arrays), then the box of one head.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import causal_attention

LAYOUT = {"flow": box(60, 120, 1480, 640)}  # above the caption band (y 760)


class WholeParams(Params):
    stage: Literal["flow", "head"]


def _dims(a: np.ndarray) -> list[int]:
    return [int(v) for v in a.shape]


def flow_data(ctx: BuildContext) -> dict:
    """Shapes of every array of one head, read off the computed arrays."""
    s = ctx.story
    att = causal_attention(ctx)
    o = att.output @ s.w_o
    arrays = {"X": s.x, "W_Q": s.w_q, "W_K": s.w_k, "W_V": s.w_v, "Q": s.q, "K": s.k, "V": s.v, "map": att.scores,
              "A": att.weights, "Z": att.output, "W_O": s.w_o, "O": o}
    return {name: _dims(a) for name, a in arrays.items()}


@CHAPTER.builder("story.whole", WholeParams)
def whole(ctx: BuildContext, p: WholeParams) -> FrameBody:
    """Input → Q, K, V → map → weights → blend → W_O → output, on one screen; then one head's box."""
    data = flow_data(ctx) | {"head_box": p.stage == "head"}
    return FrameBody(widgets=[widget("flow", "flow", LAYOUT["flow"], data)], counters=[counter(ctx, "w_o")])
