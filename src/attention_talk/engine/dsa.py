"""DeepSeek sparse attention (DSA): a cheap indexer picks k keys per query, attention reads only those.

DeepSeek-V3.2 report (arXiv:2512.02556), section 2.1. The lightning indexer has H_I small heads
(64 × 128 in V3.2) and one key per token shared by them:

    I(t, s) = Σ_j w(t, j) · ReLU(q_I(t, j) · k_I(s))       for s ≤ t (causal)

Each query t keeps the k keys s ≤ t with the largest I(t, s) (2048 in V3.2); attention is then the
ordinary softmax over those keys alone. Tie rule: among equal index scores the earlier key (smaller
s) is kept first, so the selection is a function of the scores, not of a sort's accidents.

Letters used in the shape comments:
    n   tokens (queries and keys)   H_I indexer heads   d_I indexer width
    h   attention heads             d_k query/key width d_v value width   k  keys kept per query

NumPy only, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine.attention import softmax
from attention_talk.engine.checks import (
    check_matrix,
    check_positive_int,
    check_rows,
    check_scale,
    check_stack,
    check_widths,
)


def index_scores(q_i: np.ndarray, k_i: np.ndarray, w: np.ndarray) -> np.ndarray:
    """I(t, s) = Σ_j w(t, j) · ReLU(q_I(t, j) · k_I(s)); −inf above the diagonal (s > t): (n, n).

    ``q_i`` is (H_I, n, d_I), ``k_i`` (n, d_I), ``w`` (n, H_I)."""
    q_i, k_i, w = check_stack("q_I", q_i), check_matrix("k_I", k_i), check_matrix("w_I", w)
    check_widths(q_i, k_i)
    n = q_i.shape[1]
    if k_i.shape[0] != n:
        raise ValueError(f"k_I must have one row per query: {n}, got shape {k_i.shape}")
    if w.shape != (n, q_i.shape[0]):
        raise ValueError(f"w_I must have shape (n, H_I) = {(n, q_i.shape[0])}, got {w.shape}")
    per_head = np.maximum(q_i @ k_i.T, 0.0)  # (H_I, n, n)
    scores = np.einsum("tj,jts->ts", w, per_head)  # (n, n)
    return np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)


def _check_top_k(top_k: int) -> int:
    return check_positive_int("top_k", top_k)


def select_top_k(index: np.ndarray, top_k: int) -> np.ndarray:
    """The keys each query keeps, (n_q, n_k) booleans: per row the ``top_k`` largest finite scores,
    ties to the earlier key; −inf entries (the future) are never kept."""
    top_k = _check_top_k(top_k)
    a = np.asarray(index, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError(f"index scores must be a 2-D matrix, got shape {a.shape}")
    if np.isnan(a).any() or (a == np.inf).any():
        raise ValueError("index scores must be finite or -inf")
    keep = np.zeros(a.shape, dtype=bool)
    cols = np.arange(a.shape[1])
    for t, row in enumerate(a):
        order = np.lexsort((cols, -row))  # largest score first, then the smaller position
        chosen = [s for s in order[:top_k] if np.isfinite(row[s])]
        keep[t, chosen] = True
    return keep


@dataclass(frozen=True)
class SparseAttention:
    """Attention over each query's selected keys only."""

    keep: np.ndarray  # (n_q, n_k) booleans
    selected: list[np.ndarray]  # per query, the kept key positions in order
    scale: float
    weights: np.ndarray  # (..., n_q, n_k)   zero off the kept keys
    output: np.ndarray  # (..., n_q, d_v)


def sparse_attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, keep: np.ndarray,
                  scale: float | None = None) -> SparseAttention:
    """softmax over the kept keys of each query, gathered: only those keys are read.

    ``q`` (n_q, d_k) or (h, n_q, d_k); ``k`` (n_k, d_k) and ``v`` (n_k, d_v) are shared by every
    head (as the latent is in MLA), or given per head with a leading h."""
    q3, k3, v3 = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    single = q3.ndim == 2
    q3 = check_stack("Q", q3[None] if single else q3)
    k3 = check_stack("K", k3[None] if k3.ndim == 2 else k3)
    v3 = check_stack("V", v3[None] if v3.ndim == 2 else v3)
    d_k = check_widths(q3, k3)
    check_rows(k3, v3)
    scale = check_scale(scale, d_k)
    keep = np.asarray(keep)
    if keep.dtype != bool or keep.shape != (q3.shape[1], k3.shape[1]):
        raise ValueError(f"keep must be booleans of shape (n_q, n_k) = {(q3.shape[1], k3.shape[1])}, "
                         f"got {keep.dtype} {keep.shape}")
    h = q3.shape[0]
    kh, vh = (np.broadcast_to(a, (h, *a.shape[1:])) for a in (k3, v3))
    weights = np.zeros((h, q3.shape[1], k3.shape[1]))
    output = np.zeros((h, q3.shape[1], v3.shape[2]))
    selected = [np.flatnonzero(row) for row in keep]
    for t, cols in enumerate(selected):
        if cols.size == 0:
            continue
        s = np.einsum("hd,hkd->hk", q3[:, t], kh[:, cols]) * scale  # (h, k)
        p = softmax(s, axis=-1)
        weights[:, t, cols] = p
        output[:, t] = np.einsum("hk,hkd->hd", p, vh[:, cols])
    if single:
        weights, output = weights[0], output[0]
    return SparseAttention(keep=keep, selected=selected, scale=scale, weights=weights, output=output)


@dataclass(frozen=True)
class DSA:
    """The indexer's scores, the selection and the sparse attention it leads to."""

    index: np.ndarray  # (n, n)   I(t, s), −inf for s > t
    top_k: int
    attention: SparseAttention

    @property
    def keep(self) -> np.ndarray:
        return self.attention.keep

    @property
    def output(self) -> np.ndarray:
        return self.attention.output


def dsa(q: np.ndarray, k: np.ndarray, v: np.ndarray, q_i: np.ndarray, k_i: np.ndarray, w_i: np.ndarray,
        top_k: int, scale: float | None = None) -> DSA:
    """DeepSeek sparse attention, causal: index, keep the top k per query, attend to those."""
    index = index_scores(q_i, k_i, w_i)
    keep = select_top_k(index, top_k)
    return DSA(index=index, top_k=_check_top_k(top_k), attention=sparse_attend(q, k, v, keep, scale))


def seeded_indexer(n: int, heads: int, width: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random indexer inputs (q_I (H_I, n, d_I), k_I (n, d_I), w (n, H_I)) for pictures and tests."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(heads, n, width)), rng.normal(size=(n, width)), rng.normal(size=(n, heads))
