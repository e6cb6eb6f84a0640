"""What a head does, measured: one score per head from its attention weights.

Letters: L layers, h heads per layer, n tokens. ``weights`` is (..., n, n), rows summing to 1 over
the keys a query may read (0 above the diagonal under the causal mask). Each measure averages one
chosen weight per query row, so it is a number between 0 and 1: the share of attention a head
spends on what the measure looks for.

- :func:`previous_token` — weight on the token just before (rows 1 … n−1).
- :func:`first_token` — weight on the first token, the "attention sink" (Xiao et al. 2023,
  arXiv:2309.17453), rows 1 … n−1 (row 0 can read nothing else, so it is left out).
- :func:`self_token` — weight on the query's own token, rows 1 … n−1 (row 0 can read only itself).
- :func:`share` — weight on any table of target cells, per row that has one: the measure for a job
  whose targets a sentence decides (every word's weight on the nouns before it). The measures
  here are shares with fixed targets.
- :func:`induction` — on a sequence of ``period`` tokens repeated twice, weight from each token of
  the second copy on the token *after* that token's earlier occurrence: query i (period ≤ i < 2·period)
  reads key i − period + 1 (Olsson et al. 2022, "In-context Learning and Induction Heads").

:func:`best_head` picks the top scorer of a (L, h) grid. NumPy only, no I/O.
"""

from __future__ import annotations

import numpy as np

MEASURES = ("previous", "first", "induction")


def _check(weights: np.ndarray) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim < 2 or w.shape[-1] != w.shape[-2] or w.shape[-1] < 2:
        raise ValueError(f"weights must be (..., n, n) with n >= 2, got shape {w.shape}")
    return w


def previous_token(weights: np.ndarray) -> np.ndarray:
    """Mean weight of query i on key i − 1, over i = 1 … n − 1: (...,)."""
    w = _check(weights)
    n = w.shape[-1]
    rows = np.arange(1, n)  # (n-1,)
    return w[..., rows, rows - 1].mean(axis=-1)  # (...,)


def first_token(weights: np.ndarray) -> np.ndarray:
    """Mean weight of query i on key 0, over i = 1 … n − 1: (...,)."""
    w = _check(weights)
    return w[..., 1:, 0].mean(axis=-1)  # (...,)


def self_token(weights: np.ndarray) -> np.ndarray:
    """Mean weight of query i on key i, over i = 1 … n − 1: (...,)."""
    w = _check(weights)
    rows = np.arange(1, w.shape[-1])  # (n-1,)
    return w[..., rows, rows].mean(axis=-1)  # (...,)


def share(weights: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean, over the query rows that have a target, of the weight each row puts on its target keys:
    (...,). ``targets`` is an (n, n) boolean table of (query, key) cells.

    Every measure above is a share with fixed targets (``previous_token``: the cells (i, i − 1));
    a share lets a job whose targets a sentence decides be measured the same way (every word's
    weight on the nouns before it)."""
    w = _check(weights)
    t = np.asarray(targets)
    n = w.shape[-1]
    if t.shape != (n, n) or t.dtype != bool:
        raise ValueError(f"targets must be an ({n}, {n}) boolean table, got dtype {t.dtype} with shape {t.shape}")
    rows = np.flatnonzero(t.any(axis=1))  # the queries that have a target
    if rows.size == 0:
        raise ValueError("targets has no cell: no query row to measure")
    return (w[..., rows, :] * t[rows]).sum(axis=-1).mean(axis=-1)  # (...,)


def induction_targets(period: int) -> tuple[np.ndarray, np.ndarray]:
    """(queries, keys) of the induction measure on a sequence of ``period`` tokens repeated twice."""
    if not isinstance(period, (int, np.integer)) or isinstance(period, bool) or period < 1:
        raise ValueError(f"period must be an integer >= 1, got {period!r}")
    queries = np.arange(period, 2 * period)  # (period,): the second copy
    return queries, queries - period + 1  # the token after each one's earlier occurrence


def induction(weights: np.ndarray, period: int) -> np.ndarray:
    """Mean weight of each second-copy token on the token after its earlier occurrence: (...,)."""
    w = _check(weights)
    if w.shape[-1] != 2 * period:
        raise ValueError(f"induction needs a sequence repeated twice: n = 2 × period = {2 * period}, "
                         f"got n = {w.shape[-1]}")
    queries, keys = induction_targets(period)
    return w[..., queries, keys].mean(axis=-1)  # (...,)


def score(weights: np.ndarray, measure: str, period: int | None = None) -> np.ndarray:
    """The named measure ('previous', 'first' or 'induction') of every head in ``weights``."""
    if measure == "previous":
        return previous_token(weights)
    if measure == "first":
        return first_token(weights)
    if measure == "induction":
        if period is None:
            raise ValueError("induction needs the period of the repeated sequence")
        return induction(weights, period)
    raise ValueError(f"unknown measure {measure!r}; expected one of {', '.join(MEASURES)}")


def best_head(grid: np.ndarray) -> tuple[int, int]:
    """(layer, head) of the largest score of a (L, h) grid; the first one on a tie."""
    g = np.asarray(grid, dtype=np.float64)
    if g.ndim != 2 or g.size == 0:
        raise ValueError(f"grid must be (layers, heads), got shape {g.shape}")
    layer, head = np.unravel_index(int(np.argmax(g)), g.shape)
    return int(layer), int(head)
