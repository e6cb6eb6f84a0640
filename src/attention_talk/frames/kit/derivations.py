"""Derivations: how each displayed cell of a tensor was computed, for the "explain this number" panel.

A builder makes a Tensor with ``tensor(...)`` and then attaches a derivation computed from the very
arrays the engine used, e.g.::

    t = derive_scores(tensor("S", "S = Q·Kᵀ", "scores", att.scores, box, rows=toks, cols=toks),
                      att.q, att.k, row_names=toks, col_names=toks)

Every helper works on the cells the tensor displays (``t.row_index`` × ``t.col_index``), returns the
same Tensor with ``t.derivation`` set, and keeps the arithmetic exact: the products shown plus the
sum of the ones not shown equal the cell's value (up to float rounding). The player draws the
parts; it never computes anything.

Cell value conventions (``value[r, c]`` is the displayed array's cell):

- :func:`derive_dot`      value = (left[r] · right[c]) × scale + mask[r, c]
- :func:`derive_projection` value = x[r] · W[:, c]                 (X·W; ``transposed`` for (X·W)ᵀ)
- :func:`derive_scores`   value = q[r] · k[c] (× scale) (+ mask)   (Q·Kᵀ, scaled, masked)
- :func:`derive_weights`  value = exp(s[r, c] − max_j s[r, j]) / Σ_j exp(s[r, j] − max)
- :func:`derive_output`   value = Σ_j w[r, j] · v[j, c]
- :func:`derive_copy`     value taken from elsewhere (a concatenation, a table lookup)
- :func:`derive_sum`      value = Σ of the addends listed for the cell (a row sum, a residual X + O)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from attention_talk.formatting import number
from attention_talk.frames.contract import CellDerivation, Derivation, DerivPart, Tensor, Term

SHOWN_TERMS = 3  # products shown before "… + (N more terms: sum S)"
ALL_TERMS_UP_TO = 8  # sums this short are shown in full


def _num(x: float) -> float | None:
    return None if x == -np.inf else float(x)


def _names(names: Sequence[str] | None, i: int) -> str:
    return names[i] if names is not None else str(i + 1)


def product_sum(a: np.ndarray, b: np.ndarray, labels: Sequence[str] | None = None, *, text: str = "",
                shown: int = SHOWN_TERMS) -> DerivPart:
    """Σ a_i b_i with the first few products shown and the rest summed, so they add up exactly."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    total = float(a @ b)
    keep = len(a) if len(a) <= ALL_TERMS_UP_TO else shown
    terms = [Term(a=float(a[i]), b=float(b[i]), label=labels[i] if labels is not None else str(i + 1))
             for i in range(keep)]
    more_sum = total - float(sum(t.a * t.b for t in terms))
    return DerivPart(op="sum", text=text, terms=terms, more=len(a) - keep,
                     more_sum=more_sum if len(a) > keep else 0.0, value=total)


def addend_sum(values: Sequence[float], labels: Sequence[str] | None = None, *, text: str = "",
               shown: int = SHOWN_TERMS) -> DerivPart:
    """Σ values_i with the first few addends shown and the rest summed, so they add up exactly."""
    v = np.asarray(values, dtype=np.float64)
    total = float(v.sum())
    keep = len(v) if len(v) <= ALL_TERMS_UP_TO else shown
    terms = [Term(a=None, b=float(v[i]), label=labels[i] if labels is not None else str(i + 1))
             for i in range(keep)]
    more_sum = total - float(sum(t.b for t in terms))
    return DerivPart(op="add", text=text, terms=terms, more=len(v) - keep,
                     more_sum=more_sum if len(v) > keep else 0.0, value=total)


def _cells(t: Tensor, cell: Callable[[int, int], CellDerivation]) -> list[CellDerivation]:
    return [cell(r, c) for r in t.row_index for c in t.col_index]


def derive_dot(t: Tensor, left: np.ndarray, right: np.ndarray, *, kind: str, formula: str,
               title: Callable[[int, int], str], sum_text: Callable[[int, int], str] = lambda r, c: "",
               term_labels: Sequence[str] | None = None, scale: float | None = None,
               scale_text: str = "", mask: np.ndarray | None = None,
               mask_text: Callable[[int, int], str] = lambda r, c: "") -> Tensor:
    """value[r, c] = (left[r] · right[c]) × scale + mask[r, c]; attaches the derivation to ``t``."""
    left, right = np.asarray(left, dtype=np.float64), np.asarray(right, dtype=np.float64)

    def cell(r: int, c: int) -> CellDerivation:
        part = product_sum(left[r], right[c], term_labels, text=sum_text(r, c))
        parts, value = [part], part.value
        if scale is not None:
            value = value * scale
            parts.append(DerivPart(op="scale", text=scale_text, factor=float(scale), value=value))
        if mask is not None:
            blocked = mask[r, c] == -np.inf
            value = -np.inf if blocked else value + float(mask[r, c])
            parts.append(DerivPart(op="mask", text=mask_text(r, c), value=_num(value)))
        return CellDerivation(r=r, c=c, title=title(r, c), parts=parts, value=_num(value))

    t.derivation = Derivation(kind=kind, formula=formula, cells=_cells(t, cell))  # type: ignore[arg-type]
    return t


def derive_projection(t: Tensor, x: np.ndarray, w: np.ndarray, *, x_name: str = "x", w_name: str = "W",
                      row_names: Sequence[str] | None = None, transposed: bool = False) -> Tensor:
    """A projection X·W (rows = tokens, cols = output features); ``transposed`` for (X·W)ᵀ."""
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    width = x.shape[1]
    if transposed:  # displayed[r, c] = x[c] · w[:, r]
        return derive_dot(
            t, w.T, x, kind="projection", formula=f"({x_name}·{w_name})ᵀ",
            title=lambda r, c: f"{x_name}({_names(row_names, c)}) · {w_name}[:, {r + 1}]",
            sum_text=lambda r, c: f"{width:,} products: row of {x_name} × column {r + 1} of {w_name}")
    return derive_dot(
        t, x, w.T, kind="projection", formula=f"{x_name}·{w_name}",
        title=lambda r, c: f"{x_name}({_names(row_names, r)}) · {w_name}[:, {c + 1}]",
        sum_text=lambda r, c: f"{width:,} products: row of {x_name} × column {c + 1} of {w_name}")


def derive_scores(t: Tensor, q: np.ndarray, k: np.ndarray, *, row_names: Sequence[str] | None = None,
                  col_names: Sequence[str] | None = None, scale: float | None = None,
                  mask: np.ndarray | None = None) -> Tensor:
    """Q·Kᵀ cells as dot products, optionally × scale (1/√d_k) and + mask (0 or −∞)."""
    d_k = np.asarray(q).shape[1]
    kind = "masked" if mask is not None else "scaled" if scale is not None else "scores"
    parts = ["Q·Kᵀ"] + ([f"× {number(scale, 4)}"] if scale is not None else []) + (["+ M"] if mask is not None
                                                                                   else [])
    root = f"{np.sqrt(d_k):g}" if float(np.sqrt(d_k)).is_integer() else f"{np.sqrt(d_k):.3f}"
    return derive_dot(
        t, q, k, kind=kind, formula=" ".join(parts),
        title=lambda r, c: f"score: q({_names(row_names, r)}) · k({_names(col_names, c)})",
        sum_text=lambda r, c: f"{d_k:,} products q·k",
        scale=scale, scale_text=f"× 1/√{d_k} = × 1/{root}",
        mask=mask, mask_text=lambda r, c: (
            f"mask: “{_names(col_names, c)}” is hidden from “{_names(row_names, r)}”, so −∞"
            if mask is not None and mask[r, c] == -np.inf else "mask: allowed, + 0"))


def derive_weights(t: Tensor, logits: np.ndarray, *, row_names: Sequence[str] | None = None,
                   col_names: Sequence[str] | None = None) -> Tensor:
    """Softmax cells: exp(s − row max) over the row's sum of exps (−∞ gives exactly 0)."""
    logits = np.asarray(logits, dtype=np.float64)

    def cell(r: int, c: int) -> CellDerivation:
        row = logits[r]
        finite = row[np.isfinite(row)]
        m = float(finite.max()) if finite.size else 0.0
        exps = np.where(np.isfinite(row), np.exp(np.where(np.isfinite(row), row, 0.0) - m), 0.0)
        total = float(exps.sum())
        keep = len(row) if len(row) <= ALL_TERMS_UP_TO else SHOWN_TERMS
        shown = sorted(set(range(keep)) | {c})
        terms = [Term(a=_num(row[j]), b=float(exps[j]), label=_names(col_names, j)) for j in shown]
        more = len(row) - len(shown)
        more_sum = total - float(sum(tm.b for tm in terms)) if more else 0.0
        value = float(exps[c]) / total if total > 0 else 0.0
        part = DerivPart(op="softmax", text=f"row “{_names(row_names, r)}”: exp(s − max) / Σ",
                         terms=terms, more=more, more_sum=more_sum, factor=m, num=float(exps[c]),
                         total=total, value=value)
        return CellDerivation(r=r, c=c, title=(f"weight: “{_names(row_names, r)}” → "
                                               f"“{_names(col_names, c)}”"), parts=[part], value=value)

    t.derivation = Derivation(kind="weights", formula="softmax(row)", cells=_cells(t, cell))
    # A −∞ logit's weight is exactly 0 because of the mask: drawn masked, as its score was.
    t.masked = [(r, c) for r in t.row_index for c in t.col_index if logits[r, c] == -np.inf]
    return t


def derive_output(t: Tensor, weights: np.ndarray, v: np.ndarray, *, row_names: Sequence[str] | None = None,
                  key_names: Sequence[str] | None = None, v_name: str = "v") -> Tensor:
    """Output cells Σ_j w[r, j] · v[j, c]: a weighted sum of one column of the values."""
    return derive_dot(
        t, weights, np.asarray(v, dtype=np.float64).T, kind="output", formula=f"A·{v_name.upper()}",
        title=lambda r, c: f"output({_names(row_names, r)}), feature {c + 1} = Σ w·{v_name}",
        sum_text=lambda r, c: f"weight of each key × its {v_name}, feature {c + 1}",
        term_labels=key_names)


def derive_copy(t: Tensor, source: Callable[[int, int], tuple[str, float | None]], *, formula: str,
                title: Callable[[int, int], str]) -> Tensor:
    """Cells copied from elsewhere: ``source(r, c)`` gives (where it comes from, value)."""
    def cell(r: int, c: int) -> CellDerivation:
        text, value = source(r, c)
        return CellDerivation(r=r, c=c, title=title(r, c),
                              parts=[DerivPart(op="copy", text=text, value=value)], value=value)

    t.derivation = Derivation(kind="copy", formula=formula, cells=_cells(t, cell))
    return t


def derive_sum(t: Tensor, addends: Callable[[int, int], Sequence[tuple[str, float]]], *, formula: str,
               title: Callable[[int, int], str], text: Callable[[int, int], str] = lambda r, c: "") -> Tensor:
    """Cells that are plain sums: ``addends(r, c)`` gives the (label, value) pairs added up.

    A row sum lists the row's entries; an elementwise sum X + O lists ("x", x[r, c]), ("o", o[r, c]).
    Long sums show their first few addends and the sum of the rest, like :func:`product_sum`.
    """
    def cell(r: int, c: int) -> CellDerivation:
        pairs = list(addends(r, c))
        part = addend_sum([v for _, v in pairs], [label for label, _ in pairs], text=text(r, c))
        return CellDerivation(r=r, c=c, title=title(r, c), parts=[part], value=part.value)

    t.derivation = Derivation(kind="sum", formula=formula, cells=_cells(t, cell))
    return t
