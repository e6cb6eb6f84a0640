"""Slide "The size of the map": the map has context × context cells; double the context, four
times the map (a growth table from the story's n up to the preset's longest context).
"""

from __future__ import annotations

from typing import Literal

from attention_talk.engine.costs import Costs
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import preset

LAYOUT = {"growth": box(60, 120, 1480, 640)}  # above the caption band (y 760)
DEFAULT_LIMIT = 163_840  # context length when the preset does not give one


class SizeParams(Params):
    stage: Literal["square", "double", "grow"]


def _doublings(n0: int, limit: int) -> list[int]:
    """n0, 2·n0, 4·n0, … below ``limit``, then ``limit``."""
    ns, n = [], n0
    while n < limit:
        ns.append(n)
        n *= 2
    return [*ns, limit]


def growth_sizes(c: Costs, n0: int) -> list[dict]:
    """Context lengths n0, 2·n0, 4·n0, … up to the preset's maximum, with what grows: the cells and
    memory of one head's map and its Q·Kᵀ FLOPs (2·d_k·n², the counter's scope: one head, n tokens),
    nothing the talk has not shown yet (A·V, W_V, W_O and the other heads come later)."""
    d_k = c.preset.d_k
    out = []
    for n in _doublings(n0, c.preset.max_positions or DEFAULT_LIMIT):
        cells = c.attention_map_cells(n)
        mem = c.attention_map_bytes(n)
        out.append({"n": n, "cells": int(cells.value), "cells_formula": cells.formula,
                    "bytes": int(mem.value), "bytes_formula": mem.formula,
                    "qk_flops": 2 * d_k * n * n, "qk_formula": f"2·d_k·n² = 2 × {count(d_k)} × {count(n)}²"})
    return out


@CHAPTER.builder("story.size", SizeParams)
def map_size(ctx: BuildContext, p: SizeParams) -> FrameBody:
    """The map has context × context cells: double the context, four times the map."""
    c = preset(ctx)
    data = {"sizes": growth_sizes(c, len(ctx.tokens)), "index": 0 if p.stage == "square" else 1,
            "interactive": p.stage == "grow", "source": c.source}
    return FrameBody(widgets=[widget("growth", "growth", LAYOUT["growth"], data, kind="scores")],
                     counters=[counter(ctx, "scores")])
