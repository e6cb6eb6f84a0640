"""FlashAttention tile by tile (``walk.flash``, in section 8): each tile's scores, the running max m,
sum ℓ and output O, ending equal to exact attention without storing the n × n map."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from attention_talk.engine import FlashAttention, attend, flash_attend
from attention_talk.formatting import scientific
from attention_talk.frames.context import BuildContext
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.model import FrameBody, Note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import band, sentences

LAYOUT = {"flash": band(110, 570), "equal": band(690, 80)}
FLASH_BLOCK = 4


class FlashParams(Params):
    tile: int = Field(ge=0, description="1-based tile to show; 0 shows the final comparison.")


def _matrix(a: np.ndarray) -> list[list[float]]:
    return [[float(x) for x in r] for r in a]


def _tiles(fa: FlashAttention) -> list[dict]:
    """Every tile's block of scores and the running statistics after it, as the widget's input."""
    return [{"i": t.i, "j": t.j, "rows": list(t.rows), "cols": list(t.cols), "s": _matrix(t.s),
             "m_tilde": [float(x) for x in t.m_tilde], "l_tilde": [float(x) for x in t.l_tilde],
             "m": [float(x) for x in t.m], "l": [float(x) for x in t.l], "o": _matrix(t.o)}
            for t in fa.tiles]


@CHAPTER.builder("walk.flash", FlashParams)
def flash(ctx: BuildContext, p: FlashParams) -> FrameBody:
    """FlashAttention tile by tile: per-tile S, running m, ℓ and O; the end equals exact attention."""
    river, _ = sentences(ctx)
    fa = flash_attend(river.q, river.k, river.v, block_size=FLASH_BLOCK)
    exact = attend(river.q, river.k, river.v).output
    n = len(river.tokens)
    last = len(fa.tiles)
    current = last if p.tile == 0 or p.tile > last else p.tile
    max_diff = float(np.abs(fa.output - exact).max())
    body = FrameBody(widgets=[widget("flash", "flash", LAYOUT["flash"], {
        "tokens": list(river.tokens), "n": n, "block": FLASH_BLOCK, "tiles": _tiles(fa), "current": current - 1,
        "final": p.tile == 0, "exact": _matrix(exact), "max_diff": max_diff}, kind="scores")])
    if p.tile == 0:
        body.notes.append(Note(id="eq", box=LAYOUT["equal"], kind="output", text=(
            f"After the last tile, O equals exact softmax(QKᵀ/√d_k)V: largest difference "
            f"{scientific(max_diff)}. The {n} × {n} map was never stored whole.")))
    return body
