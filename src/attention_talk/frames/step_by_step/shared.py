"""Pictures and helpers several of chapter 1's slides share: token chips, looked-up and learned
matrices, the "row × matrix = row" and "table × matrix = table" products, and the stage tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar, get_args

import numpy as np

from attention_talk.engine import Attention
from attention_talk.engine.costs import Costs, costs
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Box, FrameBody, Highlight, Kind, Symbol, Tensor, Widget
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_projection
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget

Point = tuple[float, float]  # where a symbol (×, =, →) is centred, in stage units
Stage = TypeVar("Stage", bound=Callable)


@dataclass(frozen=True)
class Equation:
    """Three tensors left to right with signs between them: ``left op middle = right``."""

    left: Box
    middle: Box
    right: Box
    op: Point
    equals: Point

    def signs(self, op_id: str = "times", op_text: str = "×") -> list[Symbol]:
        return [mark(op_id, op_text, self.op), mark("equals", "=", self.equals)]


# x (1 × d) · W (d × d_k) = out (1 × d_k): the focus token's row, the matrix, the result. Sizes keep every
# number at 25 stage units or more (20 px at 1280 × 720), two decimals in a row and three in W, with 6
# units clear of its cell: a row's box is one full-height row (ROW_H), see tests/test_chapter1_screen.py.
ROW_H = 136  # a one-row tensor: title 40, column labels 34, a 62-unit row
ROW_PRODUCT = Equation(left=box(60, 400, 400, ROW_H), middle=box(550, 130, 500, 620),
                       right=box(1140, 400, 400, ROW_H), op=(505, 470), equals=(1095, 470))
ROW_COLS = 3  # columns shown of a row (two and the last)
MATRIX_ROWS, MATRIX_COLS = 7, 3  # rows and columns shown of a d × d_k learned matrix
TABLE_COLS = 3  # columns shown of a whole n-row table beside other matrices

# X (n × d) · W (d × d_k) = out (n × d_k): the whole table, the matrix, every token's result.
TABLE_PRODUCT = Equation(left=box(60, 300, 450, 420), middle=ROW_PRODUCT.middle, right=box(1100, 300, 440, 420),
                         op=(545, 510), equals=(1075, 510))  # W keeps ROW_PRODUCT's box: it stays put


def stages(params: type[Params], table: Mapping[str, Stage]) -> dict[str, Stage]:
    """A builder's stage table, checked at import against the values its ``stage`` field allows."""
    allowed = get_args(params.model_fields["stage"].annotation)
    if set(allowed) != set(table):
        raise ValueError(f"{params.__name__}: stages {sorted(table)} do not match {sorted(allowed)}")
    return dict(table)


def preset(ctx: BuildContext) -> Costs:
    """The cost model of the deck's preset (sizes, weight and FLOP counts)."""
    return costs(ctx.deck.preset)


def causal_attention(ctx: BuildContext) -> Attention:
    """The story's causal attention (scores, mask, scaled map, weights, output), computed once per deck."""
    key = "step-by-step.attention"
    if key not in ctx._cache:
        ctx._cache[key] = ctx.story.attention(causal=True)
    return ctx._cache[key]


def mark(id: str, text: str, at: Point, **kw) -> Symbol:
    """A symbol such as × or = centred at ``at``."""
    return Symbol(id=id, text=text, x=at[0], y=at[1], **kw)


def tokens_widget(wid: str, tokens: list[str], area: Box, *, focus: int | None = None,
                  links: list[float] | None = None, caption: str = "", kind: str = "input",
                  drop: str = "none") -> Widget:
    """A row of token chips; optional arcs from the focus token to others (strength 0–1), or with
    ``drop`` the chips along the top and an arrow down from the focus token (or a "?" under each)."""
    return widget("tokens", wid, area, {"tokens": tokens, "focus": focus, "links": links, "caption": caption,
                                        "drop": drop}, kind=kind)


def row_of(a: np.ndarray, i: int) -> np.ndarray:
    return a[i : i + 1]  # (1, cols)


def reveal_row(t: Tensor, row: int) -> Tensor:
    """Show only the numbers of ``row`` (a full-tensor index); the other cells keep their colour.

    Keeps a step under about 80 text items when several matrices share the stage."""
    cells = [*t.highlight.cells, *((row, c) for c in t.col_index)]
    rows = sorted({*t.highlight.rows, row})
    return t.model_copy(update={"reveal": "highlight",
                                "highlight": t.highlight.model_copy(update={"cells": cells, "rows": rows})})


def hide_numbers(t: Tensor) -> Tensor:
    """Colours only: a matrix whose numbers an earlier step showed."""
    return t.model_copy(update={"reveal": "none"})


# Derivations for the cells that are not computed on the slide (the rest use derive_projection,
# derive_scores, derive_weights, derive_output and derive_sum directly).


def embedded(t: Tensor, x: np.ndarray, names: list[str], *, where: str = "") -> Tensor:
    """Rows of X (or one row, ``x`` (1, d)): each cell is looked up in the embedding table."""
    return derive_copy(t, lambda r, c: (f"row of the embedding table for token “{names[r]}”{where}, "
                                        f"column {count(c + 1)}", float(x[r, c])),
                       formula="embedding lookup", title=lambda r, c: f"x(“{names[r]}”), feature {count(c + 1)}")


# The learned matrices' colour roles (docs/colours.md): W_Q, W_K, W_V take the role of what they make;
# any other (W_O, the embeddings) is "weight".
LEARNED_ROLE: dict[str, Kind] = {"W_Q": "query", "W_K": "key", "W_V": "value"}


def learned_kind(name: str) -> Kind:
    return LEARNED_ROLE.get(name, "weight")


def learned(t: Tensor, w: np.ndarray, name: str) -> Tensor:
    """A weight matrix: each cell is a parameter, not computed from the input."""
    return derive_copy(t, lambda r, c: ("a learned weight, initialised at random and set by training "
                                        "(designed here for the story)", float(w[r, c])),
                       formula="learned parameter",
                       title=lambda r, c: f"{name}, row {count(r + 1)}, column {count(c + 1)}")


def focus_row_in(ctx: BuildContext, area: Box, label: str = "x", kind: Kind = "input") -> Tensor:
    """The focus token's row of X, looked up in the embedding table."""
    tok, x_row = ctx.tokens[ctx.focus], row_of(ctx.story.x, ctx.focus)
    return embedded(tensor("x-row", label, kind, x_row, area, rows=[tok], max_cols=ROW_COLS), x_row, [tok])


def focus_row_out(ctx: BuildContext, area: Box, w: np.ndarray, out: np.ndarray, *, w_name: str, name: str,
                  label: str, kind: Kind) -> Tensor:
    """The focus token's row of X·W, each cell a projection of its row of X."""
    tok, x_row = ctx.tokens[ctx.focus], row_of(ctx.story.x, ctx.focus)
    return derive_projection(tensor(name, label, kind, row_of(out, ctx.focus), area, rows=[tok], max_cols=ROW_COLS),
                             x_row, w, x_name="x", w_name=w_name, row_names=[tok])


def row_times_matrix(ctx: BuildContext, w: np.ndarray, out: np.ndarray, *, w_name: str, out_name: str,
                     out_label: str, out_kind: Kind) -> FrameBody:
    """x (1 × d) · W (d × d_k) = out (1 × d_k) for the focus token, laid out as ``ROW_PRODUCT``."""
    at = ROW_PRODUCT
    return FrameBody(
        tensors=[focus_row_in(ctx, at.left),
                 learned(tensor(w_name, w_name, learned_kind(w_name), w, at.middle, max_rows=MATRIX_ROWS,
                                max_cols=MATRIX_COLS, digits=3),
                         w, w_name),
                 focus_row_out(ctx, at.right, w, out, w_name=w_name, name=out_name, label=out_label,
                               kind=out_kind)],
        symbols=at.signs())


def table_times_matrix(ctx: BuildContext, w: np.ndarray, out: np.ndarray, *, w_name: str, out_name: str,
                       out_kind: Kind) -> FrameBody:
    """X · W = out for every token, laid out as ``TABLE_PRODUCT``: X shows the focus row's numbers, W
    only its colours (its numbers had a step of their own), the result every number."""
    s, toks, at = ctx.story, ctx.tokens, TABLE_PRODUCT
    hl = Highlight(rows=[ctx.focus])
    x = embedded(tensor("X", "X", "input", s.x, at.left, rows=toks, max_cols=TABLE_COLS, highlight=hl), s.x, toks)
    return FrameBody(
        tensors=[reveal_row(x, ctx.focus),
                 hide_numbers(learned(tensor(w_name, w_name, learned_kind(w_name), w, at.middle,
                                             max_rows=MATRIX_ROWS, max_cols=TABLE_COLS, digits=3), w, w_name)),
                 derive_projection(tensor(out_name, f"{out_name} = X·{w_name}", out_kind, out, at.right, rows=toks,
                                          max_cols=TABLE_COLS),  # no row dimmed: every row is new
                                   s.x, w, x_name="x", w_name=w_name, row_names=toks)],
        symbols=at.signs())
