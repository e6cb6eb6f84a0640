"""Stage geometry, in one place. Coordinates are stage units: the stage is 1600 × 900 (16:9) and
the player scales it to the window. The slide title sits above ``TOP``, the caption bar below
``BOTTOM``; builders lay out between them, from ``LEFT`` to ``RIGHT``.

Builders keep their boxes as data (a table of named boxes per builder module), not coordinates
sprinkled through the maths; the helpers here split an area into rows, columns or a grid.
"""

from __future__ import annotations

from attention_talk.frames.contract import STAGE_H, STAGE_W, Box

__all__ = ["BOTTOM", "CONTENT", "COVER", "LEFT", "RIGHT", "STAGE_H", "STAGE_W", "TOP", "box", "columns", "rows"]

TOP, BOTTOM, LEFT, RIGHT = 120, 760, 60, 1540


def box(x: float, y: float, w: float, h: float) -> Box:
    return Box(x=x, y=y, w=w, h=h)


CONTENT = box(LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP)
# A title slide's picture, under the deck's title (templates/slides/title.html leaves it the lower half).
COVER = box(LEFT, 440, RIGHT - LEFT, 300)


def columns(area: Box, weights: list[float], gap: float = 40) -> list[Box]:
    """Split ``area`` left to right into boxes whose widths are proportional to ``weights``."""
    free = area.w - gap * (len(weights) - 1)
    total = sum(weights)
    out, x = [], area.x
    for wt in weights:
        w = free * wt / total
        out.append(box(x, area.y, w, area.h))
        x += w + gap
    return out


def rows(area: Box, weights: list[float], gap: float = 30) -> list[Box]:
    """Split ``area`` top to bottom into boxes whose heights are proportional to ``weights``."""
    free = area.h - gap * (len(weights) - 1)
    total = sum(weights)
    out, y = [], area.y
    for wt in weights:
        h = free * wt / total
        out.append(box(area.x, y, area.w, h))
        y += h + gap
    return out
