"""Grouped-query attention (GQA): many query heads share fewer key/value heads, all heads at once.

Ainslie et al. 2023, "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head
Checkpoints" (arXiv:2305.13245): the h query heads fall into h_kv groups of r = h / h_kv
consecutive heads, and every head of group g uses key/value head g (head i → g = i // r, as in
Llama and llama.cpp). h_kv = h is plain multi-head attention; h_kv = 1 is multi-query attention.
Only h_kv key/value heads are computed and cached, so the KV cache shrinks by r.

Each head's maths is exactly :func:`attention.attend`'s, softmax(Q Kᵀ · scale + M) V, computed for
every head in one batched product rather than a Python loop; :meth:`GroupedAttention.head` gives one
head as an :class:`Attention` for slides and tests.

Letters used in the shape comments:
    h     query heads       g     key/value heads (h_kv)      r   query heads per group (h / g)
    n_q   queries           n_k   keys / values               d_k, d_v  per-head widths

NumPy only, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from attention_talk.engine.attention import Attention, additive_mask, softmax
from attention_talk.engine.checks import check_heads, check_scale, check_stack, check_widths


def kv_head_of(head: int, heads: int, kv_heads: int) -> int:
    """The key/value head that query ``head`` reads: head // (heads / kv_heads)."""
    check_heads(heads, kv_heads)
    if not 0 <= head < heads:
        raise ValueError(f"head must be between 0 and {heads - 1}, got {head}")
    return head // (heads // kv_heads)


@dataclass(frozen=True)
class GroupedMaps:
    """The attention maps of every head, without the values: what a map needs, half the work."""

    scores: np.ndarray  # (h, n_q, n_k)  Q Kᵀ of each head with its group's keys
    scale: float
    scaled: np.ndarray  # (h, n_q, n_k)
    mask: np.ndarray  # (n_q, n_k)  additive, shared by every head
    masked: np.ndarray  # (h, n_q, n_k)
    weights: np.ndarray  # (h, n_q, n_k)  rows sum to 1
    temperature: float = 1.0


@dataclass(frozen=True, kw_only=True)
class GroupedAttention(GroupedMaps):
    """Every intermediate of grouped-query attention, heads along the first axis: the maps, and the
    projections and outputs around them."""

    q: np.ndarray  # (h, n_q, d_k)
    k: np.ndarray  # (g, n_k, d_k)
    v: np.ndarray  # (g, n_k, d_v)
    output: np.ndarray  # (h, n_q, d_v)

    @classmethod
    def of(cls, maps: GroupedMaps, **rest: np.ndarray) -> GroupedAttention:
        """The maps, with q, k, v and output (``rest``) added."""
        return cls(**{f.name: getattr(maps, f.name) for f in fields(GroupedMaps)}, **rest)

    @property
    def heads(self) -> int:
        return self.q.shape[0]

    @property
    def kv_heads(self) -> int:
        return self.k.shape[0]

    def kv_head_of(self, head: int) -> int:
        return kv_head_of(head, self.heads, self.kv_heads)

    def head(self, i: int) -> Attention:
        """Head ``i`` as the single-head :class:`Attention` the slides draw."""
        g = self.kv_head_of(i)
        return Attention(q=self.q[i], k=self.k[g], v=self.v[g], scores=self.scores[i], scale=self.scale,
                         scaled=self.scaled[i], mask=self.mask, masked=self.masked[i], weights=self.weights[i],
                         output=self.output[i], temperature=self.temperature)

    @property
    def concat(self) -> np.ndarray:
        """Head outputs side by side, (n_q, h·d_v), ready for W_O."""
        h, n_q, d_v = self.output.shape
        return self.output.transpose(1, 0, 2).reshape(n_q, h * d_v)


def grouped_attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, *, causal: bool = False,
                   mask: np.ndarray | None = None, scale: float | None = None,
                   temperature: float = 1.0) -> GroupedAttention:
    """softmax(Q_i K_gᵀ · scale + M) V_g for every query head i and its group g = i // r, batched.

    ``q`` is (h, n_q, d_k); ``k`` (g, n_k, d_k) and ``v`` (g, n_k, d_v) hold the key/value heads.
    ``mask`` (n_q, n_k) is additive and shared by the heads; ``causal`` adds the causal mask (with
    n_k > n_q the queries are the last n_q positions, as when decoding with a cache).
    """
    q, k, v = check_stack("Q", q), check_stack("K", k), check_stack("V", v)
    (h, n_q, _), (g, n_k, _) = q.shape, k.shape
    r = check_heads(h, g)
    check_widths(q, k)
    if v.shape[:2] != (g, n_k):
        raise ValueError(f"V must have one head and row per K head and row: K is {k.shape}, V is {v.shape}")
    maps = grouped_maps(q, k, causal=causal, mask=mask, scale=scale, temperature=temperature)
    output = (maps.weights.reshape(g, r, n_q, n_k) @ v[:, None]).reshape(h, n_q, v.shape[2])  # (h, n_q, d_v)
    return GroupedAttention.of(maps, q=q, k=k, v=v, output=output)


def grouped_maps(q: np.ndarray, k: np.ndarray, *, causal: bool = False, mask: np.ndarray | None = None,
                 scale: float | None = None, temperature: float = 1.0) -> GroupedMaps:
    """softmax(Q_i K_gᵀ · scale + M) for every query head i and its group g, batched: the maps of
    :func:`grouped_attend` without multiplying by V (``q`` (h, n_q, d_k), ``k`` (g, n_k, d_k))."""
    q, k = check_stack("Q", q), check_stack("K", k)
    (h, n_q, _), (g, n_k, _) = q.shape, k.shape
    r = check_heads(h, g)
    d_k = check_widths(q, k)
    scale = check_scale(scale, d_k)
    full_mask = additive_mask(n_q, n_k, causal=causal, mask=mask)  # (n_q, n_k)
    grouped_q = q.reshape(g, r, n_q, d_k)  # (g, r, n_q, d_k): the r heads of each group together
    s = (grouped_q @ k[:, None].swapaxes(-1, -2)).reshape(h, n_q, n_k)  # (h, n_q, n_k)
    scaled = s * scale  # (h, n_q, n_k)
    masked = scaled + full_mask  # (h, n_q, n_k)
    weights = softmax(masked, axis=-1, temperature=temperature)  # (h, n_q, n_k)
    return GroupedMaps(scores=s, scale=scale, scaled=scaled, mask=full_mask, masked=masked, weights=weights,
                       temperature=float(temperature))
