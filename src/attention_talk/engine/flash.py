"""FlashAttention: exact attention computed tile by tile with a running max and running sum.

Follows Dao et al. 2022, "FlashAttention" (arXiv:2205.14135), Algorithm 1. For each key/value
block j (outer loop) and query block i (inner loop):

    S = Q_i K_jᵀ · scale          m̃ = rowmax S          P̃ = exp(S − m̃)          ℓ̃ = rowsum P̃
    m_new = max(m, m̃)             ℓ_new = e^(m − m_new) ℓ + e^(m̃ − m_new) ℓ̃
    O ← diag(ℓ_new)⁻¹ (diag(ℓ) e^(m − m_new) O + e^(m̃ − m_new) P̃ V_j)

The n × n attention map is never formed; only the running m, ℓ (n numbers each) and O are kept.
The result equals softmax(Q Kᵀ · scale + M) V exactly (up to float rounding).

Letters used in the shape comments:
    n_q   number of queries        n_k   number of keys / values
    d_k   query/key width          d_v   value width
    B     block size (rows of a query block = rows of a key block; the last block may be shorter)
    b_r   rows in this query block b_c   rows in this key block
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine.checks import check_qkv


@dataclass(frozen=True)
class Tile:
    """One (query block i, key block j) step of Algorithm 1, with the running state after it."""

    i: int  # query block index
    j: int  # key block index
    rows: tuple[int, int]  # [start, stop) of the query rows
    cols: tuple[int, int]  # [start, stop) of the key rows
    s: np.ndarray  # (b_r, b_c)  Q_i K_jᵀ · scale, -inf where the causal mask blocks
    m_tilde: np.ndarray  # (b_r,)  rowmax S
    p_tilde: np.ndarray  # (b_r, b_c)  exp(S − m̃)
    l_tilde: np.ndarray  # (b_r,)  rowsum P̃
    m: np.ndarray  # (b_r,)  running row max after this tile
    l: np.ndarray  # noqa: E741  (b_r,)  running row sum ℓ after this tile
    o: np.ndarray  # (b_r, d_v)  running output rows after this tile
    masked: bool  # True if the causal mask blocks part of this tile


@dataclass(frozen=True)
class FlashAttention:
    """The result of :func:`flash_attend`: the output and every tile processed, in order."""

    output: np.ndarray  # (n_q, d_v)
    m: np.ndarray  # (n_q,)  final row max
    l: np.ndarray  # noqa: E741  (n_q,)  final row sum ℓ (softmax denominator relative to m)
    tiles: list[Tile]
    skipped: list[tuple[int, int]]  # (i, j) tiles the causal mask blocks entirely
    block_size: int
    scale: float


def blocks(n: int, size: int) -> list[tuple[int, int]]:
    """Split range(n) into [start, stop) blocks of ``size`` rows; the last one may be shorter."""
    return [(start, min(start + size, n)) for start in range(0, n, size)]


def tile_scores(q_i: np.ndarray, k_j: np.ndarray, scale: float, rows, cols, causal: bool, offset: int
                ) -> tuple[np.ndarray, bool]:
    """S = Q_i K_jᵀ · scale, with -inf where key position > query position + offset (causal)."""
    s = q_i @ k_j.T  # (b_r, d_k)(d_k, b_c) = (b_r, b_c)
    s *= scale  # (b_r, b_c)
    if not causal or cols[1] - 1 <= rows[0] + offset:
        return s, False  # no position in this tile is in the future
    query_pos = np.arange(*rows)[:, None] + offset  # (b_r, 1)
    key_pos = np.arange(*cols)[None, :]  # (1, b_c)
    s[key_pos > query_pos] = -np.inf  # (b_r, b_c)
    return s, True


def finite_or_zero(x: np.ndarray) -> np.ndarray:
    """``x`` with -inf (a row the mask blocks entirely) replaced by 0, so exp(S − m̃) stays 0, not NaN."""
    return x if np.isfinite(x).all() else np.where(np.isfinite(x), x, 0.0)


def rescale(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """e^(old − new), taken as 0 where ``old`` is -inf (nothing seen yet, or a fully masked row)."""
    if np.isfinite(new).all():  # the usual case: exp(-inf - finite) is already 0
        return np.exp(old - new)  # (b_r,)
    finite = np.isfinite(old)  # (b_r,)  where old is finite, new >= old is finite too
    diff = np.where(finite, old, 0.0) - np.where(finite, new, 0.0)  # (b_r,)  avoids -inf - -inf
    return np.where(finite, np.exp(diff), 0.0)  # (b_r,)


def flash_attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, block_size: int, causal: bool = False,
                 scale: float | None = None) -> FlashAttention:
    """Exact attention by FlashAttention tiling (Dao et al. 2022, Algorithm 1).

    Equals ``attend(q, k, v, causal=causal, scale=scale).output``. With ``causal`` and n_k > n_q the
    queries are the last n_q positions, as in :func:`causal_mask`. Tiles the causal mask blocks
    entirely are skipped (listed in ``skipped``); tiles it blocks in part are masked.
    """
    if not isinstance(block_size, (int, np.integer)) or isinstance(block_size, bool) or block_size < 1:
        raise ValueError(f"block_size must be an integer >= 1, got {block_size!r}")
    q, k, v, scale = check_qkv(q, k, v, scale)
    n_q = q.shape[0]
    n_k, d_v = v.shape
    offset = n_k - n_q  # causal: query i sits at position i + offset

    o = np.zeros((n_q, d_v))  # (n_q, d_v)
    l = np.zeros(n_q)  # noqa: E741  (n_q,)
    m = np.full(n_q, -np.inf)  # (n_q,)
    tiles, skipped = [], []
    for j, cols in enumerate(blocks(n_k, block_size)):
        k_j, v_j = k[cols[0]:cols[1]], v[cols[0]:cols[1]]  # (b_c, d_k), (b_c, d_v)
        for i, rows in enumerate(blocks(n_q, block_size)):
            if causal and cols[0] > rows[1] - 1 + offset:
                skipped.append((i, j))  # every key here is after every query here
                continue
            r = slice(*rows)
            s, masked = tile_scores(q[r], k_j, scale, rows, cols, causal, offset)  # (b_r, b_c)
            m_tilde = s.max(axis=1)  # (b_r,)
            p_tilde = np.exp(s - finite_or_zero(m_tilde)[:, None])  # (b_r, b_c)
            l_tilde = p_tilde.sum(axis=1)  # (b_r,)
            m_new = np.maximum(m[r], m_tilde)  # (b_r,)
            alpha = rescale(m[r], m_new)  # (b_r,)  e^(m − m_new)
            beta = rescale(m_tilde, m_new)  # (b_r,)  e^(m̃ − m_new)
            l_new = alpha * l[r] + beta * l_tilde  # (b_r,)
            unnormalised = (l[r] * alpha)[:, None] * o[r] + beta[:, None] * (p_tilde @ v_j)  # (b_r, d_v)
            o_new = unnormalised / np.where(l_new > 0, l_new, 1.0)[:, None]  # (b_r, d_v)
            o[r], l[r], m[r] = o_new, l_new, m_new
            tiles.append(Tile(i=i, j=j, rows=rows, cols=cols, s=s, m_tilde=m_tilde, p_tilde=p_tilde,
                              l_tilde=l_tilde, m=m_new, l=l_new, o=o_new, masked=masked))
    return FlashAttention(output=o, m=m, l=l, tiles=tiles, skipped=skipped, block_size=int(block_size),
                          scale=float(scale))
