"""The Frame: everything the player draws for one step, as JSON. The player never does maths.

Coordinates are in stage units: the stage is 1600 × 900 (16:9) and scales to the window.
A tensor's ``values`` hold only its display window (``row_index`` × ``col_index`` of the full
``shape``); ``null`` stands for −∞ (a masked score), which JSON cannot carry.

Widgets (anything drawn that is not a matrix) are typed per kind in ``frames.widgets``; ``Box``,
``Kind`` and the strict base model live in ``frames.primitives``, below both, and are re-exported
here with ``Widget`` so ``from attention_talk.frames.contract import Box, Widget`` works.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from attention_talk.frames.primitives import Box, Kind
from attention_talk.frames.primitives import Strict as _Model
from attention_talk.frames.quiz import Question, Reveal
from attention_talk.frames.widgets import AnyWidget, Widget

__all__ = [
    "STAGE_H",
    "STAGE_W",
    "AnyWidget",
    "Arrow",
    "Box",
    "CellDerivation",
    "Counter",
    "DerivPart",
    "Derivation",
    "DerivedSource",
    "Frame",
    "FrameBody",
    "Highlight",
    "Kind",
    "Note",
    "Symbol",
    "Tensor",
    "TensorSource",
    "Term",
    "Widget",
]

STAGE_W, STAGE_H = 1600, 900


class Highlight(_Model):
    rows: list[int] = Field(default_factory=list, description="Full-tensor row indices.")
    cols: list[int] = Field(default_factory=list, description="Full-tensor column indices.")
    cells: list[tuple[int, int]] = Field(default_factory=list)


class Term(_Model):
    """One product a × b of a derivation's sum (or, in a softmax, a score a and its exp b; in an
    ``add``, the addend b, with a unused)."""

    a: float | None
    b: float
    label: str = ""


class DerivPart(_Model):
    """One line of a cell's derivation, computed from the engine's arrays.

    ``op`` says how to read it: ``sum`` (Σ a·b over ``terms`` + ``more_sum`` for ``more`` terms not
    shown = ``value``), ``scale`` (previous × ``factor``), ``mask`` (previous + 0, or −∞),
    ``softmax`` (exp(a − ``factor``) for each key in ``terms``; ``num`` / ``total`` = ``value``),
    ``copy`` (a value taken from elsewhere, described by ``text``), ``add`` (Σ b over ``terms`` +
    ``more_sum`` for ``more`` addends not shown = ``value``).
    """

    op: Literal["sum", "scale", "mask", "softmax", "copy", "add"]
    text: str = ""
    terms: list[Term] = Field(default_factory=list)
    more: int = 0
    more_sum: float = 0.0
    factor: float | None = None
    num: float | None = None
    total: float | None = None
    value: float | None = Field(default=None, description="This part's result; null means −∞.")


class CellDerivation(_Model):
    r: int = Field(description="Full-tensor row index.")
    c: int = Field(description="Full-tensor column index.")
    title: str
    parts: list[DerivPart] = Field(default_factory=list, description=(
        "The steps of the computation. Served apart from the frames (GET …/slides/{slide}/derivations, "
        "fetched when a panel opens), so a frame carries only each cell's title and value."))
    value: float | None = Field(description="The cell's value (null means −∞).")


class Derivation(_Model):
    """How every displayed cell of a tensor was computed (opened by clicking or focusing a cell)."""

    kind: Literal["projection", "scores", "scaled", "masked", "weights", "output", "copy", "sum"]
    formula: str
    cells: list[CellDerivation] = Field(default_factory=list)


class TensorSource(_Model):
    """Where a tensor's values come from in a real model: ``POST /api/model/attention`` with this
    ``text`` returns, for ``layer`` and ``head`` (0-based), the attention weights the tensor shows
    (its displayed window: ``row_index`` × ``col_index``)."""

    model: str = Field(description="The model's name, as GET /api/model gives it (general.name of its GGUF file).")
    text: str = Field(description="The text run through the model.")
    layer: int = Field(description="Layer, 0-based.")
    head: int = Field(description="Query head, 0-based.")


class DerivedSource(_Model):
    """A tensor computed from a real model's run that is not an attention map itself; ``quantity``
    says what: ``scores`` (q·k of ``layer``, ``head``), ``scaled`` (÷ √d_k), ``masked`` (+ the causal
    mask) — each a row-wise softmax away from that head's weights —, ``rope`` (that head's q·k with
    the query and key placed at other positions), or a measure of every head (``previous``,
    ``first``, ``induction``: a heads × layers grid in percent; ``layer`` and ``head`` null)."""

    model: str = Field(description="The model's name, as GET /api/model gives it.")
    text: str = Field(description="The text run through the model.")
    layer: int | None = Field(description="Layer, 0-based; null for a grid over every layer.")
    head: int | None = Field(description="Query head, 0-based; null for a grid over every head.")
    quantity: Literal["scores", "scaled", "masked", "rope", "previous", "first", "induction"]


class TensorPart(_Model):
    """Some rows or cells of a tensor that are the same object as something another frame draws (a
    row of the embedding table that becomes a row of X, a grid cell that is a head's whole map): the
    player flies it there on the step or slide change between them (static/js/views/continuity.js)."""

    identity: str = Field(description="The object's identity, shared with a tensor's `identity` (or name) "
                          "or a part in another frame.")
    rows: list[int] = Field(default_factory=list, description="Full-tensor row indices: whole rows.")
    cells: list[tuple[int, int]] = Field(default_factory=list, description="Full-tensor (row, column) cells.")

    @model_validator(mode="after")
    def _names_something(self) -> TensorPart:
        if not self.rows and not self.cells:
            raise ValueError(f"part {self.identity!r} names no rows and no cells")
        return self


class Tensor(_Model):
    name: str = Field(description="Stable id within a slide; the player animates tensors by name.")
    identity: str | None = Field(default=None, description=(
        "What object the tensor is, across slides and tensors: one with the same identity in the next "
        "frame (or a part with it) is the same object and travels there. Unset: its name."))
    parts: list[TensorPart] = Field(default_factory=list, description="Rows or cells that are objects of "
                                    "their own (see TensorPart).")
    label: str = Field(description="Title drawn above the matrix, e.g. 'Q = X·W_Q'.")
    kind: Kind
    shape: tuple[int, ...]
    rows: list[str] = Field(description="Labels of the displayed rows.")
    cols: list[str] = Field(description="Labels of the displayed columns.")
    row_index: list[int] = Field(description="Full-tensor index of each displayed row.")
    col_index: list[int] = Field(description="Full-tensor index of each displayed column.")
    values: list[list[float | None]] = Field(description="Displayed values; null means −∞.")
    box: Box
    digits: int = 2
    heat: bool = Field(default=False, description="Colour cells by value (a heatmap).")
    highlight: Highlight = Field(default_factory=Highlight)
    transposed: bool = False
    gutter: float | None = Field(default=None, description="Width of the row-label gutter; tensors that "
                                 "share a gutter line up their columns.")
    masked: list[tuple[int, int]] = Field(default_factory=list, description=(
        "Full-tensor (row, col) of displayed cells a mask blocks whose value is a number: a weight of "
        "exactly 0 after softmax of −∞. Drawn with the one masked look (docs/colours.md), as a null "
        "(−∞) score is."))
    reveal: Literal["all", "highlight", "none"] = Field(
        default="all", description="Which cells show their number: all, only highlighted ones, none.")
    derivation: Derivation | None = Field(default=None, description="Per-cell derivations.")
    source: TensorSource | None = Field(default=None, description=(
        "Set when the tensor shows a real model's attention weights: the model, text, layer and head "
        "whose POST /api/model/attention answer it equals."))
    derived_from: DerivedSource | None = Field(default=None, description=(
        "Set when the tensor was computed from a real model's run but is not its weights (scores, a "
        "measure over every head …): the run and what was computed from it."))


class Counter(_Model):
    id: str
    label: str
    value: float
    formula: str
    source: str
    unit: str = ""


class Note(_Model):
    """A short annotation drawn on the stage (text computed from the frame's numbers)."""

    id: str
    text: str
    box: Box
    kind: Kind = "neutral"


class Arrow(_Model):
    id: str
    x1: float
    y1: float
    x2: float
    y2: float
    label: str = ""


class Symbol(_Model):
    """A large operator between matrices (×, =, +, ÷ √d_k …), centred at (x, y)."""

    id: str
    text: str
    x: float
    y: float
    size: float = 56
    kind: Kind = "neutral"


class FrameBody(_Model):
    """What a builder returns: the drawing, without the step's words."""

    tensors: list[Tensor] = Field(default_factory=list)
    widgets: list[AnyWidget] = Field(default_factory=list, description=(
        "Everything drawn that is not a matrix; one typed kind per JS view (see frames.widgets)."))
    notes: list[Note] = Field(default_factory=list)
    arrows: list[Arrow] = Field(default_factory=list)
    symbols: list[Symbol] = Field(default_factory=list)
    counters: list[Counter] = Field(default_factory=list)


class Frame(FrameBody):
    deck: str
    slide: str
    slide_number: int = Field(description="1-based")
    step: int = Field(description="1-based")
    steps: int
    caption: str
    narration: str
    builder: str | None = None
    # absent when None: most frames ask nothing, and the first paint's bytes are counted
    question: Question | None = Field(default=None, exclude_if=lambda v: v is None,
                                      description="A guess asked on this step (frames/quiz.py).")
    reveal: Reveal | None = Field(default=None, exclude_if=lambda v: v is None,
                                  description="The answer to the previous step's question.")
