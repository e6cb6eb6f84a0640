"""What a frame puts on screen, estimated from the frame alone (no browser): the font size of a
matrix's numbers as static/js/views/matrix.js lays them out, how many text items a step shows,
whether every box stays on the stage above the caption band and inside the grid's margins, and how
much of the band between title and caption the drawing reaches through. Used by
tests/test_chapter1_screen.py.

The matrix layout mirrors ``layout()`` and ``cellType()`` in static/js/views/matrix.js: a title band
of 40 and a column-label band of 34 stage units, a row-label gutter, cells at most 120 × 62, a gap of
0.6 cell per jump in the displayed indices, and numbers at min(cell height × 0.68, (cell width − 2 −
2 × 6) / (0.62 × longest number), 30), with fewer decimals while that is under 25 (and a quarter of the
non-zero values at most turn to zero). The stage is 1600 wide; at a 1280 px window 25 stage units are
20 px.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from attention_talk.formatting import number
from attention_talk.frames.contract import STAGE_W, Frame, Tensor
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT

TITLE_H, COL_H, GAP, MAX_CW, MAX_CH = 40, 34, 0.6, 120, 62
MIN_FONT = 25  # stage units: 20 CSS px at 1280 × 720 (static/js/lib/type.js TYPE.dense)
PAD, MONO_EM, MAX_FONT = 6, 0.62, 30
CHROME_ITEMS = 3  # the slide title, the caption and the position line the player adds to every step


def _gaps(index: list[int]) -> int:
    return sum(1 for a, b in itertools.pairwise(index) if b != a + 1)


@dataclass(frozen=True)
class CellLayout:
    cw: float
    ch: float
    font: float


def cell_layout(t: Tensor) -> CellLayout:
    longest_row = max([len(r) for r in t.rows] + [1])
    row_w = t.gutter if t.gutter is not None else min(190, 16 + longest_row * 15)
    gw, gh = t.box.w - row_w, t.box.h - TITLE_H - COL_H
    cw = min(MAX_CW, gw / (len(t.cols) + GAP * _gaps(t.col_index)))
    ch = min(MAX_CH, gh / (len(t.rows) + GAP * _gaps(t.row_index)))
    values = [v for row in t.values for v in row]

    def fit(digits: int) -> float:
        longest = max([len(number(v, digits)) for v in values] + [1])
        return min(ch * 0.68, (cw - 2 - 2 * PAD) / (longest * MONO_EM), MAX_FONT)

    def keeps(digits: int) -> bool:
        nonzero = [v for v in values if v is not None and v != 0]
        return sum(1 for v in nonzero if float(f"{abs(v):.{digits}f}") == 0) <= len(nonzero) / 4

    digits = t.digits
    while digits > 0 and fit(digits) < MIN_FONT and keeps(digits - 1):
        digits -= 1
    return CellLayout(cw, ch, fit(digits))


def shown_cells(t: Tensor) -> int:
    if t.reveal == "none":
        return 0
    if t.reveal == "highlight":
        hl = set(t.highlight.cells)
        return sum(1 for r in t.row_index for c in t.col_index if (r, c) in hl or c in t.highlight.cols)
    return len(t.rows) * len(t.cols)


def tensor_items(t: Tensor) -> int:
    """Title and shape, axis labels, ellipses and the numbers shown."""
    labels = sum(1 for s in [*t.rows, *t.cols] if s.strip())
    return 2 + labels + _gaps(t.row_index) + _gaps(t.col_index) + shown_cells(t)


def widget_items(w) -> int:
    d = w.data
    if w.type == "tokens":
        return len(d.tokens) + (1 if d.caption else 0)
    if w.type == "weight-bars":
        return 2 * len(d.values) + 2 + (1 if d.sum is not None else 0)
    return 30  # the diagrams (stack, dense, growth, flow, heads) draw a fixed handful of labels


def text_items(f: Frame) -> int:
    """Roughly what tools/stepscan.py counts for the step, chrome included."""
    return (CHROME_ITEMS + sum(tensor_items(t) for t in f.tensors) + len(f.notes) + 2 * len(f.counters)
            + len(f.symbols) + sum(widget_items(w) for w in f.widgets))


# The band between the slide title and the caption, in stage units at 1280 × 720: the title's foot
# (28 + 55 × 1.1) and the caption's top (the 118-unit caption bar, its line centred in it). A note
# is drawn as tall as its text (at most its box): 28-unit lines of 1.35, about 0.52 em a character,
# 18 + 6 units of padding and border a side, 14 above and below.
BAND = (88.5, 804.0)
NOTE_LINE, NOTE_CHAR, NOTE_PAD_X, NOTE_PAD_Y = 28 * 1.35, 28 * 0.52, 48, 30
TITLE_TOP = 8  # a matrix's ink starts with its title's capitals, under the box's top


def tensor_extent(t: Tensor) -> tuple[float, float]:
    """Top and foot of a matrix as drawn: its title and column bands, then its rows at their height."""
    lay = cell_layout(t)
    return t.box.y + TITLE_TOP, t.box.y + TITLE_H + COL_H + lay.ch * (len(t.rows) + GAP * _gaps(t.row_index))


def note_extent(n) -> tuple[float, float]:
    chars_per_line = max(1, int((n.box.w - NOTE_PAD_X) / NOTE_CHAR))
    lines = -(-len(n.text) // chars_per_line)
    return n.box.y, n.box.y + min(n.box.h, lines * NOTE_LINE + NOTE_PAD_Y)


def widget_extent(w) -> tuple[float, float]:
    """A widget fills its box, except a row of token chips with no arcs: only its chips, at the foot."""
    if w.type == "tokens" and w.data.drop == "none" and not w.data.links:
        return w.box.y + w.box.h - min(80, 0.62 * w.box.h) - 4, w.box.y + w.box.h
    return w.box.y, w.box.y + w.box.h


def band_share(f: Frame, also: tuple[float, float] | None = None) -> float:
    """The share of the band between title and caption whose rows hold some drawing (an estimate of
    what tests/browser/test_stage_use.py measures on a screenshot); ``also``: a span the template
    draws itself (a title slide's title)."""
    spans = sorted([*(tensor_extent(t) for t in f.tensors), *(note_extent(n) for n in f.notes),
                    *(widget_extent(w) for w in f.widgets), *([also] if also else [])])
    top, foot = BAND
    covered, reach = 0.0, top
    for a, b in spans:
        a, b = max(a, reach), min(b, foot)
        if b > a:
            covered += b - a
            reach = b
    return covered / (foot - top)


def boxes(f: Frame):
    """(what, box) for everything placed with a box."""
    yield from ((f"tensor {t.name}", t.box) for t in f.tensors)
    yield from ((f"note {n.id}", n.box) for n in f.notes)
    yield from ((f"widget {w.id}", w.box) for w in f.widgets)


def outside(f: Frame) -> list[str]:
    """Boxes that leave the stage's width or reach into the caption band (below ``BOTTOM``)."""
    return [what for what, b in boxes(f) if b.x < 0 or b.y < 0 or b.x + b.w > STAGE_W or b.y + b.h > BOTTOM]


def off_grid(f: Frame) -> list[str]:
    """Boxes whose left or right edge leaves the layout grid's margins (``LEFT``, ``RIGHT``)."""
    return [what for what, b in boxes(f) if b.x < LEFT or b.x + b.w > RIGHT]
