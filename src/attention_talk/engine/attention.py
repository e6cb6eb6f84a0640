"""Scaled dot-product attention and multi-head attention, every intermediate kept.

Follows Vaswani et al. 2017, "Attention Is All You Need" (arXiv:1706.03762), section 3.2:

    Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + M) V

Letters used in the shape comments:
    n_q   number of queries (rows of Q)        n_k   number of keys / values (rows of K and V)
    n     number of tokens in self-attention   d     model width (d_model)
    h     number of heads                      d_k   query/key width per head
    d_v   value width per head

The explicit version is written for reading: it keeps scores, scaled, masked and weights so a slide
can show each of them. Nothing here does I/O or imports anything beyond NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from attention_talk.engine.checks import check_heads, check_mask, check_matrix, check_qkv, check_split

NEG_INF = -np.inf


def softmax(x: np.ndarray, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Numerically stable softmax of ``x / temperature`` along ``axis``.

    The maximum of each slice is subtracted before ``exp`` so large scores cannot overflow.
    Entries equal to ``-inf`` (masked) get weight exactly 0. A slice that is entirely ``-inf``
    (every position masked) returns all zeros rather than NaN: nothing is allowed, so nothing is
    attended to.
    """
    if not np.isfinite(temperature) or temperature <= 0:
        raise ValueError(f"temperature must be a finite number > 0, got {temperature!r}")
    x = np.asarray(x, dtype=np.float64)
    if x.shape and x.shape[axis] == 0:
        return np.zeros_like(x)
    row_max = np.max(x, axis=axis, keepdims=True)  # NaN propagates into the max
    if np.isnan(row_max).any():
        raise ValueError("softmax input contains NaN")
    if (row_max == np.inf).any():
        raise ValueError("softmax input contains +inf")
    safe_max = np.where(np.isfinite(row_max), row_max, 0.0)  # all-masked rows: avoid -inf - -inf
    # Subtract the max before dividing by the temperature: x / T could overflow, (x - max) / T cannot.
    with np.errstate(over="ignore"):  # x - max <= 0, so overflow can only give -inf, i.e. weight 0
        e = x - safe_max  # fresh array, so the steps below may work in place
        if temperature != 1.0:
            e /= temperature
    np.exp(e, out=e)  # masked entries: exp(-inf) = 0
    total = np.sum(e, axis=axis, keepdims=True)
    e /= np.where(total > 0, total, 1.0)  # a zero total means every entry is already 0
    return e


def causal_mask(n_q: int, n_k: int | None = None) -> np.ndarray:
    """Additive causal mask: 0 where query i may see key j (j <= i), -inf above the diagonal.

    With ``n_k > n_q`` the queries are taken to be the last ``n_q`` positions (as when decoding
    with a cache), so query i sees keys up to ``i + n_k - n_q``.
    """
    n_k = n_q if n_k is None else n_k
    if n_q < 0 or n_k < 0:
        raise ValueError(f"mask sizes must be >= 0, got n_q={n_q}, n_k={n_k}")
    offset = n_k - n_q
    allowed = np.tril(np.ones((n_q, n_k), dtype=bool), k=offset)  # (n_q, n_k)
    return np.where(allowed, 0.0, NEG_INF)


def padding_mask(keep: int | np.ndarray | list, n_q: int | None = None, *, total: int | None = None
                 ) -> np.ndarray:
    """Additive padding mask over keys: 0 for real tokens, -inf for padding, the same in every row.

    ``keep`` is either a 1-D sequence of booleans (True = a real token, False = padding) or an
    integer length, in which case ``total`` gives the padded size (the first ``length`` positions
    are real). The result has shape ``(n_q, n_k)``; ``n_q`` defaults to ``n_k``.
    """
    if isinstance(keep, (int, np.integer)) and not isinstance(keep, bool):
        if total is None:
            raise ValueError("padding_mask(length) needs total= (the padded sequence length)")
        if not 0 <= keep <= total:
            raise ValueError(f"length must be between 0 and total={total}, got {keep}")
        keep = np.arange(total) < keep
    keep_arr = np.asarray(keep)
    if keep_arr.ndim != 1 or keep_arr.dtype != bool:
        raise ValueError(f"padding_mask expects a length or a 1-D sequence of booleans, got dtype "
                         f"{keep_arr.dtype} with shape {keep_arr.shape}")
    n_k = keep_arr.shape[0]
    n_q = n_k if n_q is None else n_q
    row = np.where(keep_arr, 0.0, NEG_INF)  # (n_k,)
    return np.tile(row, (n_q, 1))  # (n_q, n_k)


def additive_mask(n_q: int, n_k: int, *, causal: bool = False, mask: np.ndarray | None = None) -> np.ndarray:
    """The mask the scaled scores get, (n_q, n_k): the causal mask when ``causal``, plus ``mask``
    (checked by ``checks.check_mask``) when given; zeros when neither."""
    full = causal_mask(n_q, n_k) if causal else np.zeros((n_q, n_k))  # (n_q, n_k)
    extra = check_mask(mask, n_q, n_k)
    return full if extra is None else full + extra


@dataclass(frozen=True)
class Attention:
    """Every intermediate of one scaled dot-product attention."""

    q: np.ndarray  # (n_q, d_k)
    k: np.ndarray  # (n_k, d_k)
    v: np.ndarray  # (n_k, d_v)
    scores: np.ndarray  # (n_q, n_k)  Q Kᵀ
    scale: float  # usually 1/√d_k
    scaled: np.ndarray  # (n_q, n_k)  scores · scale
    mask: np.ndarray  # (n_q, n_k)  additive, 0 or -inf
    masked: np.ndarray  # (n_q, n_k)  scaled + mask
    weights: np.ndarray  # (n_q, n_k)  softmax(masked / temperature), rows sum to 1
    output: np.ndarray  # (n_q, d_v)  weights V
    temperature: float = 1.0


def scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Dot product of every query with every key: Q Kᵀ."""
    return q @ k.T  # (n_q, d_k)(d_k, n_k) = (n_q, n_k)


def attend(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    *,
    causal: bool = False,
    mask: np.ndarray | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
) -> Attention:
    """Scaled dot-product attention keeping every intermediate.

    Works for self-attention (Q, K, V from one sequence) and cross-attention (n_q ≠ n_k).
    ``mask`` is additive (0 keeps, -inf blocks) and is added to the causal mask when both are
    given. ``scale`` defaults to 1/√d_k.
    """
    q, k, v, scale = check_qkv(q, k, v, scale)
    n_q, n_k = q.shape[0], k.shape[0]

    full_mask = additive_mask(n_q, n_k, causal=causal, mask=mask)  # (n_q, n_k)

    s = scores(q, k)  # (n_q, n_k)
    scaled = s * scale  # (n_q, n_k)
    has_mask = causal or mask is not None  # adding an all-zero mask would only cost a pass
    masked = scaled + full_mask if has_mask else scaled.copy()  # (n_q, n_k)
    weights = softmax(masked, axis=-1, temperature=temperature)  # (n_q, n_k)
    output = weights @ v  # (n_q, n_k)(n_k, d_v) = (n_q, d_v)
    return Attention(q=q, k=k, v=v, scores=s, scale=float(scale), scaled=scaled, mask=full_mask,
                     masked=masked, weights=weights, output=output, temperature=float(temperature))


@dataclass(frozen=True)
class MultiHead:
    """Every intermediate of multi-head attention."""

    heads: list[Attention]  # one per head
    concat: np.ndarray  # (n, h·d_v)  head outputs side by side
    output: np.ndarray  # (n, d)      concat W_O
    w_o: np.ndarray  # (h·d_v, d)

    @cached_property
    def head_outputs(self) -> list[np.ndarray]:
        """Each head's output through its own slice of W_O, each (n, d); computed when asked."""
        w_o_slices = np.split(self.w_o, len(self.heads), axis=0)  # each (d_v, d_out)
        return [h.output @ w for h, w in zip(self.heads, w_o_slices, strict=True)]  # each (n_q, d_out)

    @property
    def sum_of_heads(self) -> np.ndarray:
        """Σ_i head_i · W_O[i·d_v:(i+1)·d_v, :] — equal to concat · W_O."""
        return np.sum(self.head_outputs, axis=0)


def merge_heads(outputs: list[np.ndarray]) -> np.ndarray:
    """Concatenate head outputs (each (n, d_v)) side by side into (n, h·d_v)."""
    return np.concatenate(outputs, axis=1)


def multi_head(
    x: np.ndarray,
    w_q: np.ndarray,
    w_k: np.ndarray,
    w_v: np.ndarray,
    w_o: np.ndarray,
    *,
    heads: int,
    causal: bool = False,
    mask: np.ndarray | None = None,
    scale: float | None = None,
    temperature: float = 1.0,
    context: np.ndarray | None = None,
    kv_heads: int | None = None,
) -> MultiHead:
    """Multi-head attention: MultiHead(X) = Concat(head_1, …, head_h) W_O.

    ``w_q`` is (d, h·d_k), ``w_k`` (d, h_kv·d_k), ``w_v`` (d, h_kv·d_v) and ``w_o`` (h·d_v, d_out);
    head i uses the i-th column block of W_Q and W_O and block i // (h / h_kv) of W_K and W_V.
    ``kv_heads`` (h_kv) defaults to ``heads``: plain multi-head attention; fewer is grouped-query
    attention (Ainslie et al. 2023, arXiv:2305.13245; batched for every head in ``engine.gqa``).
    With ``context`` given, keys and values come from it (cross-attention); otherwise from ``x``.
    """
    kv_heads = heads if kv_heads is None else kv_heads
    group = check_heads(heads, kv_heads)  # query heads per key/value head
    x = check_matrix("X", x)
    src = x if context is None else check_matrix("context", context)
    w_q, w_k, w_v, w_o = (check_matrix(nm, w) for nm, w in
                          (("W_Q", w_q), ("W_K", w_k), ("W_V", w_v), ("W_O", w_o)))
    d = x.shape[1]
    if src.shape[1] != d:
        raise ValueError(f"X and context must have the same width: X is {x.shape}, context is {src.shape}")
    for name, w, blocks in (("W_Q", w_q, heads), ("W_K", w_k, kv_heads), ("W_V", w_v, kv_heads)):
        if w.shape[0] != d:
            raise ValueError(f"{name} must have {d} rows to match X {x.shape}, got shape {w.shape}")
        check_split(name, w.shape[1], blocks)
    if w_q.shape[1] // heads != w_k.shape[1] // kv_heads:
        raise ValueError(f"W_Q and W_K must have the same width per head: {w_q.shape} for {heads} heads "
                         f"vs {w_k.shape} for {kv_heads}")
    if w_o.shape[0] != w_v.shape[1] // kv_heads * heads:
        raise ValueError(f"W_O must have h·d_v = {w_v.shape[1] // kv_heads * heads} rows, got shape {w_o.shape}")

    q_all = x @ w_q  # (n_q, h·d_k)
    k_all = src @ w_k  # (n_k, h_kv·d_k)
    v_all = src @ w_v  # (n_k, h_kv·d_v)
    k_heads, v_heads = np.split(k_all, kv_heads, axis=1), np.split(v_all, kv_heads, axis=1)
    results = [
        attend(q, k_heads[i // group], v_heads[i // group], causal=causal, mask=mask, scale=scale,
               temperature=temperature)
        for i, q in enumerate(np.split(q_all, heads, axis=1))
    ]
    outputs = [r.output for r in results]  # each (n_q, d_v)
    concat = merge_heads(outputs)  # (n_q, h·d_v)
    output = concat @ w_o  # (n_q, d_out)
    return MultiHead(heads=results, concat=concat, output=output, w_o=w_o)
