"""FlashAttention's sweep (``walk.flash``, in section 8): the causal head of section 5, tile by tile
(the ``flash`` widget, its data from ``frames/kit/flash.py``). Each tile's scores, each row's
running max m and sum ℓ as bars that rescale, and its output Z; the tile above the diagonal is
skipped (every key in it is in the future); the end equals the pipeline's Z without storing the
n × n map."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from attention_talk.engine import FlashAttention, flash_attend
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.flash import flash_sweep, sweep_stage
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import band, causal_river

LAYOUT = {"flash": band(110, 640)}
FLASH_BLOCK = 4


class FlashParams(Params):
    tile: int = Field(ge=0, description="1-based tile to show; 0 shows the final comparison.")
    skip: bool = Field(default=False, description="Show the tile the causal mask skips, after ``tile``.")


def tiled(ctx: BuildContext) -> tuple[FlashAttention, np.ndarray]:
    """FlashAttention on the causal river sentence, and the pipeline's Z = A·V it must equal."""
    river = causal_river(ctx)
    return flash_attend(river.q, river.k, river.v, block_size=FLASH_BLOCK, causal=True), river.attention.output


@CHAPTER.builder("walk.flash", FlashParams)
def flash(ctx: BuildContext, p: FlashParams) -> FrameBody:
    """FlashAttention's sweep: each tile's S, each row's m and ℓ as bars that rescale, Z per tile; the end
    beside the pipeline's Z."""
    fa, exact = tiled(ctx)
    river = causal_river(ctx)
    stage, current = sweep_stage(p.tile, p.skip, len(fa.tiles))
    data = flash_sweep(river.q, river.k, river.v, river.tokens, exact, block_size=FLASH_BLOCK, causal=True,
                       stage=stage, current=current)
    return FrameBody(widgets=[widget("flash", "flash", LAYOUT["flash"], data, kind="scores")])
