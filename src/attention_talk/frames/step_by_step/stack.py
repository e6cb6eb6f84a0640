"""Slide "Zooming into the first block": the model as a stack of blocks, then the inside of the first."""

from __future__ import annotations

from typing import Literal

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.shared import preset

LAYOUT = {"stack": box(60, 120, 1480, 640)}  # above the caption band (y 760)


class StackParams(Params):
    stage: Literal["model", "block"]


@CHAPTER.builder("story.stack", StackParams)
def model_stack(ctx: BuildContext, p: StackParams) -> FrameBody:
    """The model as a stack of blocks, then the inside of the first one."""
    pr = preset(ctx).preset
    data = {"tokens": ctx.tokens, "layers": pr.layers, "d_model": pr.d_model, "heads": pr.heads,
            "vocab": pr.vocab, "zoom": p.stage == "block"}
    if pr.dense_layers is not None:
        data["dense_layers"] = pr.dense_layers
    return FrameBody(widgets=[widget("stack", "stack", LAYOUT["stack"], data)])
