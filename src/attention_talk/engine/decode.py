"""Autoregressive decoding with a key/value cache.

A causal model generates one token at a time. The keys and values of earlier tokens never change,
so they are computed once and kept in a cache; each new token appends one key row and one value row
and attends over everything cached (Vaswani et al. 2017, arXiv:1706.03762, §3.2.3 masking; the
cache is the standard inference trick, sized per token in the DeepSeek-V2 report, arXiv:2405.04434).
Feeding the rows of Q, K, V one at a time gives exactly the rows of full causal attention.

Letters used in the shape comments:
    t     tokens in the cache     n     tokens decoded
    d_k   query/key width         d_v   value width
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine.attention import Attention, attend
from attention_talk.engine.checks import check_heads, check_matrix, check_widths
from attention_talk.engine.gqa import GroupedAttention, grouped_attend


class KVCache:
    """Keys and values of every token seen so far, growing one row per token.

    Rows live in buffers that double when full, so appending is amortised O(d) rather than a copy
    of the whole cache; ``keys`` and ``values`` are read-only views of the filled part.
    """

    def __init__(self, d_k: int, d_v: int, capacity: int = 16) -> None:
        if d_k < 1 or d_v < 1 or capacity < 1:
            raise ValueError(f"KVCache needs d_k, d_v, capacity >= 1, got {d_k}, {d_v}, {capacity}")
        self.d_k, self.d_v = int(d_k), int(d_v)
        self._k = np.empty((capacity, d_k))  # (capacity, d_k)
        self._v = np.empty((capacity, d_v))  # (capacity, d_v)
        self._length = 0

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> np.ndarray:
        view = self._k[: self._length]  # (t, d_k)
        view.flags.writeable = False
        return view

    @property
    def values(self) -> np.ndarray:
        view = self._v[: self._length]  # (t, d_v)
        view.flags.writeable = False
        return view

    @property
    def numbers(self) -> int:
        """Numbers stored: t · (d_k + d_v)."""
        return self._length * (self.d_k + self.d_v)

    def append(self, k_row: np.ndarray, v_row: np.ndarray) -> None:
        """Add one token's key row (d_k,) and value row (d_v,)."""
        k_row = np.asarray(k_row, dtype=np.float64).reshape(-1)  # (d_k,)
        v_row = np.asarray(v_row, dtype=np.float64).reshape(-1)  # (d_v,)
        if k_row.shape != (self.d_k,) or v_row.shape != (self.d_v,):
            raise ValueError(f"cache rows must have shapes ({self.d_k},) and ({self.d_v},), "
                             f"got {k_row.shape} and {v_row.shape}")
        if not (np.all(np.isfinite(k_row)) and np.all(np.isfinite(v_row))):
            raise ValueError("cache rows contain NaN or infinite values")
        if self._length == self._k.shape[0]:
            self._k = np.concatenate([self._k, np.empty_like(self._k)])  # (2·capacity, d_k)
            self._v = np.concatenate([self._v, np.empty_like(self._v)])  # (2·capacity, d_v)
        self._k[self._length] = k_row
        self._v[self._length] = v_row
        self._length += 1


@dataclass(frozen=True)
class DecodeStep:
    """One generated token: its attention over the cache after appending its own key and value."""

    position: int  # index of this token
    attention: Attention  # q (1, d_k), k (t, d_k), weights (1, t), output (1, d_v)
    cache_size: int  # tokens in the cache after this step (t = position + 1)

    @property
    def output(self) -> np.ndarray:
        return self.attention.output[0]  # (d_v,)


@dataclass(frozen=True)
class Decode:
    """Every step of decoding a sequence token by token."""

    steps: list[DecodeStep]
    output: np.ndarray  # (n, d_v)  row i = step i's output
    cache_sizes: list[int]  # tokens cached after each step: 1, 2, …, n
    cache_numbers: list[int]  # numbers cached after each step: t · (d_k + d_v)


def decode_step(q_row: np.ndarray, k_row: np.ndarray, v_row: np.ndarray, cache: KVCache,
                scale: float | None = None) -> DecodeStep:
    """Append this token's key and value to ``cache``, then attend from its query over the cache.

    No mask is needed: the cache holds only this token and earlier ones.
    """
    q = np.asarray(q_row, dtype=np.float64).reshape(1, -1)  # (1, d_k)
    if q.shape[1] != cache.d_k:
        raise ValueError(f"query row must have width d_k = {cache.d_k}, got shape {np.shape(q_row)}")
    check_matrix("query row", q)
    position = len(cache)
    cache.append(k_row, v_row)
    result = attend(q, cache.keys, cache.values, scale=scale)  # weights (1, t), output (1, d_v)
    return DecodeStep(position=position, attention=result, cache_size=len(cache))


def decode(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, scale: float | None = None) -> Decode:
    """Feed the rows of Q, K, V one token at a time through a fresh cache.

    Row i of the result equals row i of ``attend(q, k, v, causal=True).output``.
    """
    q, k, v = check_matrix("Q", q), check_matrix("K", k), check_matrix("V", v)
    if not (q.shape[0] == k.shape[0] == v.shape[0]):
        raise ValueError(f"Q, K and V must have one row per token: Q is {q.shape}, K is {k.shape}, "
                         f"V is {v.shape}")
    check_widths(q, k)
    cache = KVCache(d_k=k.shape[1], d_v=v.shape[1])
    steps = [decode_step(q[t], k[t], v[t], cache, scale=scale) for t in range(q.shape[0])]
    output = np.array([s.output for s in steps]).reshape(q.shape[0], v.shape[1])  # (n, d_v)
    return Decode(steps=steps, output=output, cache_sizes=[s.cache_size for s in steps],
                  cache_numbers=[s.cache_size * (cache.d_k + cache.d_v) for s in steps])


def decode_step_grouped(q_rows: np.ndarray, k_rows: np.ndarray, v_rows: np.ndarray, caches: list[KVCache],
                        scale: float | None = None) -> GroupedAttention:
    """One token through grouped-query attention with one cache per key/value head.

    ``q_rows`` is (h, d_k): this token's query in every head; ``k_rows`` (g, d_k) and ``v_rows``
    (g, d_v) its key and value in every key/value head, appended to ``caches[g]`` first. Every
    query head then attends over its group's cache: weights (h, 1, t), output (h, 1, d_v). Only g
    caches grow, h / g times fewer numbers than one per query head.
    """
    q = np.asarray(q_rows, dtype=np.float64)
    k_rows, v_rows = np.asarray(k_rows, dtype=np.float64), np.asarray(v_rows, dtype=np.float64)
    if q.ndim != 2 or k_rows.ndim != 2 or v_rows.ndim != 2:
        raise ValueError(f"rows must be (heads, width): Q {q.shape}, K {k_rows.shape}, V {v_rows.shape}")
    if len(caches) != k_rows.shape[0] or len(caches) != v_rows.shape[0]:
        raise ValueError(f"one cache per key/value head: {len(caches)} caches for K {k_rows.shape}, "
                         f"V {v_rows.shape}")
    check_heads(q.shape[0], len(caches))
    for cache, k_row, v_row in zip(caches, k_rows, v_rows, strict=True):
        cache.append(k_row, v_row)
    keys = np.stack([c.keys for c in caches])  # (g, t, d_k)
    values = np.stack([c.values for c in caches])  # (g, t, d_v)
    return grouped_attend(q[:, None, :], keys, values, scale=scale)  # weights (h, 1, t)
