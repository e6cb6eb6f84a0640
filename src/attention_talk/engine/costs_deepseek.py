"""DeepSeek-V3.2's attention costs against the context length: plain multi-head, MLA, MLA + DSA.

The counts of ``costs.py`` (same conventions: 2 FLOPs per multiply-add, matrix products only — the
softmax, the norms, the indexer's ReLU and its head weighting (H_I multiply-adds per key, 1/d_I of
its dot products) and the top-k selection are not counted; bf16, 2 bytes per number), extended
with what decoding one token costs when the context holds n tokens:

    plain multi-head (the talk's simplified head)   projections + 2·h·(d_k + d_v)·n
    MLA, absorbed (DeepSeek-V2 §2.1.3)              projections + 2·h·((r_kv + d_r) + r_kv)·n
        scores against the cached [c_KV ; k_R] (r_kv + d_r wide), the weighted sum over c_KV (r_kv)
    MLA + DSA (DeepSeek-V3.2 §2.1)                  projections + indexer projections
                                                    + 2·H_I·d_I·n (the indexer reads every key)
                                                    + 2·h·((r_kv + d_r) + r_kv)·min(n, k)

Letters as in ``costs.py``; H_I indexer heads, d_I indexer width, k keys kept per query.
No NumPy, no I/O.
"""

from __future__ import annotations

from attention_talk.engine.costs import (
    SOURCE_BF16,
    SOURCE_K,
    SOURCE_V2,
    SOURCE_V3,
    SOURCE_V32,
    Costs,
    Count,
    PerContext,
    join_sources,
)
from attention_talk.formatting import count as fmt

KINDS = ("mha", "mla", "dsa")
NAMES = {"mha": "plain multi-head", "mla": "MLA", "dsa": "MLA + DSA"}


def _dsa(c: Costs) -> tuple[int, int, int]:
    p = c.preset
    if p.dsa_top_k is None or p.dsa_index_heads is None or p.dsa_index_dim is None or p.mla is None:
        raise ValueError(f"preset {p.name!r} has no DSA indexer shapes")
    return p.dsa_index_heads, p.dsa_index_dim, p.dsa_top_k


def _check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown attention kind {kind!r}; expected one of {', '.join(KINDS)}")
    return kind


def mla_context_per_key(c: Costs) -> Count:
    """FLOPs per cached key for one new token, all heads, absorbed MLA: 2·h·((r_kv + d_r) + r_kv)."""
    m, h = c._mla(), c.preset.heads
    value = 2 * h * (m.kv_lora_rank + m.qk_rope_head_dim + m.kv_lora_rank)
    return Count(value, f"2·h·((r_kv + d_r) + r_kv) = 2 × {h} × ({m.kv_lora_rank} + {m.qk_rope_head_dim} + "
                        f"{m.kv_lora_rank})", join_sources(SOURCE_K, SOURCE_V2, SOURCE_V3), "FLOPs",
                 "MLA scores and weighted sum, per key")


def mla_flops_per_token(c: Costs) -> PerContext:
    """Dense MLA, one token, one layer: the five projections + every cached key."""
    proj, per_key = c.mla_flops().value, mla_context_per_key(c).value
    return PerContext(proj, per_key, f"{fmt(proj)} + {fmt(per_key)}·n",
                      join_sources(SOURCE_K, SOURCE_V2, SOURCE_V3), "FLOPs", "MLA FLOPs per token, one layer")


def indexer_weights(c: Costs) -> Count:
    """The lightning indexer's projections: query heads from the query latent, one key and the
    head weights from the hidden state: r_q·H_I·d_I + d·d_I + d·H_I."""
    heads, width, _ = _dsa(c)
    r_q, d = c._mla().q_lora_rank, c.preset.d_model
    value = r_q * heads * width + d * width + d * heads
    return Count(value, f"r_q·H_I·d_I + d·d_I + d·H_I = {fmt(r_q)} × {heads} × {width} + {fmt(d)} × {width} + "
                        f"{fmt(d)} × {heads}", SOURCE_V32, "weights", "DSA indexer projections, one layer")


def indexer_per_key(c: Costs) -> Count:
    """The indexer's FLOPs per earlier token: 2·H_I·d_I (every head's query against the shared key)."""
    heads, width, _ = _dsa(c)
    return Count(2 * heads * width, f"2·H_I·d_I = 2 × {heads} × {width}", join_sources(SOURCE_K, SOURCE_V32),
                 "FLOPs", "DSA indexer, per key")


def dsa_flops_per_token(c: Costs, n: int) -> Count:
    """MLA + DSA, one token, one layer, context n: projections and indexer projections, the indexer
    over all n keys, MLA over min(n, k) of them."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"context length n must be an integer >= 0, got {n!r}")
    _, _, top_k = _dsa(c)
    proj, idx_w = c.mla_flops().value, 2 * indexer_weights(c).value
    idx_key, per_key, read = indexer_per_key(c).value, mla_context_per_key(c).value, min(n, top_k)
    value = proj + idx_w + idx_key * n + per_key * read
    return Count(value, f"{fmt(proj)} + {fmt(idx_w)} + {fmt(idx_key)}·n + {fmt(per_key)}·min(n, k), "
                        f"n = {fmt(n)}, k = {fmt(top_k)}",
                 join_sources(SOURCE_K, SOURCE_V2, SOURCE_V3, SOURCE_V32), "FLOPs",
                 f"MLA + DSA FLOPs per token, one layer (n = {fmt(n)})")


def flops_per_token(c: Costs, kind: str, n: int) -> Count:
    """One token, one layer, context n, for ``kind`` in mha (the talk's simplified head), mla, dsa."""
    kind = _check_kind(kind)
    if kind == "dsa":
        return dsa_flops_per_token(c, n)
    return (c.flops_per_token() if kind == "mha" else mla_flops_per_token(c)).at(n)


def cache_numbers_per_token_layer(c: Costs, kind: str) -> Count:
    """Numbers cached per token per layer; DSA adds the indexer's key (d_I) to MLA's r_kv + d_r."""
    kind = _check_kind(kind)
    if kind != "dsa":
        return c.kv_numbers_per_token_layer(kind)
    _, width, _ = _dsa(c)
    mla = c.kv_numbers_per_token_layer("mla")
    return Count(mla.value + width, f"{mla.formula.split(' = ')[0]} + d_I = {mla.formula.split(' = ')[1]} + "
                                    f"{width}", join_sources(mla.source, SOURCE_V32), "numbers",
                 "cache (MLA + DSA), one token, one layer")


def cache_bytes(c: Costs, kind: str, n: int) -> Count:
    """Bytes cached for a context of n tokens over all L layers (bf16)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"context length n must be an integer >= 0, got {n!r}")
    nums, b, L = cache_numbers_per_token_layer(c, kind), c.preset.bytes_per_number, c.preset.layers
    return Count(nums.value * b * L * n, f"{fmt(nums.value)} numbers × {b} bytes × L × n = "
                                         f"{fmt(nums.value * b)} × {L} × {fmt(n)}",
                 join_sources(nums.source, SOURCE_BF16), "bytes", f"cache ({NAMES[kind]}), {L} layers, n = {fmt(n)}")


def curves(c: Costs, contexts: list[int]) -> dict[str, dict[str, list[Count]]]:
    """FLOPs per token and cache bytes of every kind at each context length."""
    return {"flops": {k: [flops_per_token(c, k, n) for n in contexts] for k in KINDS},
            "cache": {k: [cache_bytes(c, k, n) for n in contexts] for k in KINDS}}
