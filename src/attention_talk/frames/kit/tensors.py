"""Turn NumPy arrays into displayable tensors: labels, a readable window, −∞ as null."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.frames.contract import Box, Highlight, Kind, Tensor, TensorPart


def window(size: int, limit: int) -> list[int]:
    """Indices to display out of ``size``: all when they fit, else the first ``limit-1`` and the last."""
    if size <= limit:
        return list(range(size))
    return [*range(limit - 1), size - 1]


def index_labels(size: int, shown: Sequence[int]) -> list[str]:
    """1-based column labels with thousands separators: '1', '2', …, '7,168'."""
    return [f"{i + 1:,}" for i in shown]


def tensor(
    name: str,
    label: str,
    kind: Kind,
    array: np.ndarray,
    box: Box | tuple[float, float, float, float],
    *,
    rows: Sequence[str] | None = None,
    cols: Sequence[str] | None = None,
    max_rows: int = 12,
    max_cols: int = 10,
    digits: int | None = None,
    heat: bool = False,
    highlight: Highlight | None = None,
    transposed: bool = False,
    reveal: str = "all",
    gutter: float | None = None,
    identity: str | None = None,
    parts: Sequence[TensorPart] = (),
) -> Tensor:
    """A Tensor showing a window of ``array`` (2-D) with its full shape.

    ``digits`` defaults to 3 for weight matrices (their entries are small) and 2 otherwise.
    ``identity`` and ``parts`` say which object it (or some of its rows or cells) is when that is
    not its name: the player flies an object from one frame to the next (frames/contract.py).
    """
    if digits is None:
        digits = 3 if kind == "weight" else 2
    a = np.asarray(array, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    n_rows, n_cols = a.shape
    ri, ci = window(n_rows, max_rows), window(n_cols, max_cols)
    row_labels = [rows[i] for i in ri] if rows is not None else index_labels(n_rows, ri)
    col_labels = [cols[j] for j in ci] if cols is not None else index_labels(n_cols, ci)
    shown = a[np.ix_(ri, ci)]
    values = [[None if v == -np.inf else round(float(v), 6) for v in row] for row in shown]
    if isinstance(box, tuple):
        box = Box(x=box[0], y=box[1], w=box[2], h=box[3])
    return Tensor(name=name, label=label, kind=kind, shape=tuple(int(s) for s in array.shape),
                  rows=row_labels, cols=col_labels, row_index=ri, col_index=ci, values=values,
                  box=box, digits=digits, heat=heat, highlight=highlight or Highlight(),
                  transposed=transposed, reveal=reveal, gutter=gutter, identity=identity, parts=list(parts))
