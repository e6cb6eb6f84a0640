"""FlashAttention tile by tile (``walk.flash``, in section 8): the causal head of section 5, tile by
tile. Each tile's scores, the running max m, sum ℓ and output Z; the tile above the diagonal is
skipped (every key in it is in the future); the end equals the pipeline's Z without storing the
n × n map."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from attention_talk.engine import FlashAttention, flash_attend
from attention_talk.formatting import scientific
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import band, causal_river

LAYOUT = {"flash": band(120, 530), "equal": band(660, 100)}
FLASH_BLOCK = 4


class FlashParams(Params):
    tile: int = Field(ge=0, description="1-based tile to show; 0 shows the final comparison.")
    skip: bool = Field(default=False, description="Show the tile the causal mask skips, after ``tile``.")


def _matrix(a: np.ndarray) -> list[list[float | None]]:
    """Rows of floats, −∞ (a score the causal mask blocks) as None."""
    return [[None if x == -np.inf else float(x) for x in r] for r in a]


def _tiles(fa: FlashAttention) -> list[dict]:
    """Every tile's block of scores and the running statistics after it, as the widget's input."""
    return [{"i": t.i, "j": t.j, "rows": list(t.rows), "cols": list(t.cols), "s": _matrix(t.s),
             "m_tilde": [float(x) for x in t.m_tilde], "l_tilde": [float(x) for x in t.l_tilde],
             "m": [float(x) for x in t.m], "l": [float(x) for x in t.l], "o": _matrix(t.o)}
            for t in fa.tiles]


def _skipped(fa: FlashAttention, n: int) -> list[dict]:
    """The tiles the causal mask blocks entirely, as [start, stop) rows and columns."""
    span = [(s, min(s + fa.block_size, n)) for s in range(0, n, fa.block_size)]
    return [{"rows": list(span[i]), "cols": list(span[j])} for i, j in fa.skipped]


def tiled(ctx: BuildContext) -> tuple[FlashAttention, np.ndarray]:
    """FlashAttention on the causal river sentence, and the pipeline's Z = A·V it must equal."""
    river = causal_river(ctx)
    return flash_attend(river.q, river.k, river.v, block_size=FLASH_BLOCK, causal=True), river.attention.output


@CHAPTER.builder("walk.flash", FlashParams, notes=("eq",))
def flash(ctx: BuildContext, p: FlashParams) -> FrameBody:
    """FlashAttention tile by tile: per-tile S, running m, ℓ and Z; the end equals the pipeline's Z."""
    fa, exact = tiled(ctx)
    tokens = list(causal_river(ctx).tokens)
    n, last = len(tokens), len(fa.tiles)
    current = last if p.tile == 0 or p.tile > last else p.tile
    max_diff = float(np.abs(fa.output - exact).max())
    body = FrameBody(widgets=[widget("flash", "flash", LAYOUT["flash"], {
        "tokens": tokens, "n": n, "block": FLASH_BLOCK, "tiles": _tiles(fa), "current": current - 1,
        "final": p.tile == 0, "exact": _matrix(exact), "max_diff": max_diff, "skipped": _skipped(fa, n),
        "row_diff": [scientific(float(d)) for d in np.abs(fa.output - exact).max(axis=1)],
        "show_skip": p.skip}, kind="scores")])
    if p.tile == 0:
        body.notes.append(note("eq", LAYOUT["equal"], "output", difference=scientific(max_diff), tokens=n))
    return body
