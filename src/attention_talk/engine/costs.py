"""The cost model: weights, FLOPs and bytes of attention, each with its formula and source.

Counting convention: a multiply-add is 2 FLOPs (Kaplan et al. 2020, arXiv:2001.08361, eq 2.2), so a
(1, a) row times an (a, b) matrix costs 2·a·b FLOPs. Memory: bf16, 2 bytes per number.

Letters used in the formulas:
    n     tokens in the context        d     model width (d_model)
    h     query heads                  h_kv  key/value heads (h for multi-head, fewer for GQA)
    d_k   query/key width per head     d_v   value width per head
    L     layers                       r_kv  MLA latent (kv_lora_rank)    d_r  MLA RoPE key width

Every function returns a :class:`Count` (a number with its formula and source) or, for costs that
grow with the context, a :class:`PerContext` (constant + per_n · n) whose ``at(n)`` gives a Count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from fractions import Fraction

from attention_talk.formatting import count as fmt  # formulas write numbers the way slides do

SOURCE_K = "Kaplan et al. 2020, arXiv:2001.08361, eq 2.2 (2 FLOPs per multiply-add)"
SOURCE_V2 = "DeepSeek-V2 report, arXiv:2405.04434 (MLA, eqs 9-19, Table 1)"
SOURCE_V3 = "DeepSeek-V3 report, arXiv:2412.19437"
SOURCE_V32 = "DeepSeek-V3.2 report, arXiv:2512.02556; deepseek-ai/DeepSeek-V3.2-Exp inference config"
SOURCE_VAS = "Vaswani et al. 2017, Attention Is All You Need, arXiv:1706.03762"
SOURCE_SM = "SmolLM2-135M config (Hugging Face, Apache-2.0)"
SOURCE_BF16 = "bf16: 2 bytes per number"

MATRICES = ("W_Q", "W_K", "W_V", "W_O")
KV_KINDS = ("mha", "gqa", "mla")


def join_sources(*sources: str) -> str:
    """Join '; '-separated source lists, keeping each source once, in order."""
    parts = [part for s in sources for part in s.split("; ")]
    return "; ".join(dict.fromkeys(parts))


@dataclass(frozen=True)
class Count:
    """A number a slide shows, with how it is computed and where its inputs come from."""

    value: int | float
    formula: str  # symbols, then the numbers: "d·d_k = 7,168 × 128"
    source: str
    unit: str = ""
    label: str = ""

    def __str__(self) -> str:
        unit = f" {self.unit}" if self.unit else ""
        return f"{self.label}: {fmt(self.value)}{unit} ({self.formula}) [{self.source}]"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PerContext:
    """A count that grows with the context: constant + per_n · n."""

    constant: int
    per_n: int
    formula: str  # "939,524,096 + 65,536·n"
    source: str
    unit: str = ""
    label: str = ""

    def at(self, n: int) -> Count:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"context length n must be an integer >= 0, got {n!r}")
        return Count(self.constant + self.per_n * n, f"{self.formula}, n = {fmt(n)}", self.source,
                     self.unit, f"{self.label} (n = {fmt(n)})")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class MLAShape:
    """Multi-head latent attention (DeepSeek-V2 §2.1) projection sizes."""

    q_lora_rank: int  # r_q: query latent
    kv_lora_rank: int  # r_kv: key/value latent (cached)
    qk_nope_head_dim: int  # per-head query/key width without RoPE
    qk_rope_head_dim: int  # d_r: RoPE query/key width (the key part is shared and cached)
    v_head_dim: int  # per-head value width


@dataclass(frozen=True)
class Preset:
    """The dimensions of one model, and where they come from."""

    name: str
    d_model: int
    heads: int
    d_k: int
    d_v: int
    layers: int
    source: str
    kv_heads: int | None = None  # None: one key/value head per query head (plain multi-head)
    vocab: int | None = None
    max_positions: int | None = None
    bytes_per_number: int = 2  # bf16
    mla: MLAShape | None = None
    dense_layers: int | None = None  # the first layers with a dense feed-forward part; the rest are MoE
    dsa_top_k: int | None = None  # DeepSeek sparse attention: the keys each query reads
    dsa_index_heads: int | None = None  # DSA lightning indexer: heads (index_n_heads)
    dsa_index_dim: int | None = None  # DSA lightning indexer: width of its queries and key (index_head_dim)
    description: str = field(default="", compare=False)

    @property
    def h_kv(self) -> int:
        return self.heads if self.kv_heads is None else self.kv_heads


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(name="deepseek-v3.2", d_model=7168, heads=128, d_k=128, d_v=128, layers=61, vocab=129_280,
               max_positions=163_840, source=f"{SOURCE_V3}; {SOURCE_V32}",
               mla=MLAShape(q_lora_rank=1536, kv_lora_rank=512, qk_nope_head_dim=128, qk_rope_head_dim=64,
                            v_head_dim=128),
               dense_layers=3, dsa_top_k=2048,  # config: first_k_dense_replace, index_topk
               dsa_index_heads=64, dsa_index_dim=128,  # config: index_n_heads, index_head_dim
               description="DeepSeek-V3.2 drawn as the talk's simplified multi-head attention "
                           "(d_k = d_v = 128, no RoPE part); the real MLA shapes are in .mla"),
        Preset(name="vaswani-base", d_model=512, heads=8, d_k=64, d_v=64, layers=6, source=SOURCE_VAS,
               description="The base Transformer of Attention Is All You Need"),
        Preset(name="smollm2-135m", d_model=576, heads=9, d_k=64, d_v=64, layers=30, kv_heads=3,
               vocab=49_152, max_positions=8192, source=SOURCE_SM,
               description="SmolLM2-135M: 9 query heads sharing 3 key/value heads (GQA)"),
    )
}


def get_preset(name: str) -> Preset:
    """The preset called ``name``; ValueError listing the known names otherwise."""
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown preset {name!r}; known presets: {', '.join(sorted(PRESETS))}") from None


def _check_matrix(matrix: str) -> str:
    if matrix not in MATRICES:
        raise ValueError(f"unknown matrix {matrix!r}; expected one of {', '.join(MATRICES)}")
    return matrix


class Costs:
    """Every count of one preset. Build with ``Costs(get_preset(name))`` or ``costs(name)``."""

    def __init__(self, preset: Preset) -> None:
        self.preset = preset
        self.source = preset.source
        self.flop_source = f"{SOURCE_K}; dimensions: {preset.source}"

    # ---- weights ------------------------------------------------------------------------------
    def _head_shape(self, matrix: str) -> tuple[int, int, str]:
        p = self.preset
        return {"W_Q": (p.d_model, p.d_k, "d·d_k"), "W_K": (p.d_model, p.d_k, "d·d_k"),
                "W_V": (p.d_model, p.d_v, "d·d_v"), "W_O": (p.d_v, p.d_model, "d_v·d")}[_check_matrix(matrix)]

    def _heads_of(self, matrix: str) -> tuple[int, str]:
        """W_K and W_V have one block per key/value head (fewer than h under GQA)."""
        return (self.preset.h_kv, "h_kv") if matrix in ("W_K", "W_V") else (self.preset.heads, "h")

    def weights_per_head(self, matrix: str = "W_Q") -> Count:
        """Weights of one head's block of ``matrix``: d·d_k (d·d_v for W_V, d_v·d for W_O)."""
        rows, cols, sym = self._head_shape(matrix)
        return Count(rows * cols, f"{sym} = {fmt(rows)} × {fmt(cols)}", self.source, "weights",
                     f"{matrix}, one head")

    def weights_per_matrix(self, matrix: str = "W_Q") -> Count:
        """Weights of ``matrix`` for all heads: d·h·d_k (h_kv heads for W_K, W_V)."""
        rows, cols, sym = self._head_shape(matrix)
        heads, h = self._heads_of(matrix)
        return Count(rows * cols * heads, f"{sym}·{h} = {fmt(rows)} × {fmt(cols)} × {fmt(heads)}",
                     self.source, "weights", f"{matrix}, all heads")

    def weights_attention(self) -> Count:
        """W_Q, W_K, W_V and W_O together, one layer."""
        parts = [self.weights_per_matrix(m) for m in MATRICES]
        return Count(sum(c.value for c in parts), " + ".join(f"{fmt(c.value)} ({m})" for c, m in
                                                             zip(parts, MATRICES, strict=True)),
                     self.source, "weights", "W_Q + W_K + W_V + W_O, one layer")

    # ---- FLOPs per token ----------------------------------------------------------------------
    def flops_projection_per_head(self, matrix: str = "W_Q") -> Count:
        """One token through one head's block of ``matrix``: 2 FLOPs per weight."""
        w = self.weights_per_head(matrix)
        return Count(2 * w.value, f"2·{w.formula.split(' = ')[0]} = 2 × {fmt(w.value)}", self.flop_source,
                     "FLOPs", f"{matrix}, one head, one token")

    def flops_projection(self, matrix: str = "W_Q") -> Count:
        """One token through ``matrix`` for all heads."""
        w = self.weights_per_matrix(matrix)
        return Count(2 * w.value, f"2·{w.formula.split(' = ')[0]} = 2 × {fmt(w.value)}", self.flop_source,
                     "FLOPs", f"{matrix}, all heads, one token")

    def flops_projections(self) -> Count:
        """One token through W_Q, W_K, W_V and W_O: 2 × the weights."""
        w = self.weights_attention()
        return Count(2 * w.value, f"2 × weights = 2 × {fmt(w.value)}", self.flop_source, "FLOPs",
                     "W_Q + W_K + W_V + W_O, one token")

    def flops_scores(self) -> PerContext:
        """QKᵀ for one new token against n keys, all heads: 2·h·d_k·n."""
        p = self.preset
        per_n = 2 * p.heads * p.d_k
        return PerContext(0, per_n, f"2·h·d_k·n = 2 × {p.heads} × {p.d_k} · n = {fmt(per_n)}·n",
                          self.flop_source, "FLOPs", "QKᵀ, all heads, one token")

    def flops_weighted_values(self) -> PerContext:
        """weights × V for one new token over n values, all heads: 2·h·d_v·n."""
        p = self.preset
        per_n = 2 * p.heads * p.d_v
        return PerContext(0, per_n, f"2·h·d_v·n = 2 × {p.heads} × {p.d_v} · n = {fmt(per_n)}·n",
                          self.flop_source, "FLOPs", "weights × V, all heads, one token")

    def flops_per_token(self) -> PerContext:
        """Attention FLOPs per token in one layer: projections + QKᵀ + weights × V."""
        proj = self.flops_projections().value
        per_n = self.flops_scores().per_n + self.flops_weighted_values().per_n
        return PerContext(proj, per_n, f"{fmt(proj)} + {fmt(per_n)}·n", self.flop_source, "FLOPs",
                          "attention FLOPs per token, one layer")

    def context_equals_projections_at(self) -> Count:
        """The n at which the context part (QKᵀ, weights × V) costs as much as the projections."""
        total = self.flops_per_token()
        n = Fraction(total.constant, total.per_n)
        value = int(n) if n.denominator == 1 else float(n)
        return Count(value, f"{fmt(total.constant)} / {fmt(total.per_n)}", self.flop_source, "tokens",
                     "context where QKᵀ + weights × V equal the projections")

    # ---- memory -------------------------------------------------------------------------------
    def kv_numbers_per_token_layer(self, kind: str = "mha") -> Count:
        """Numbers cached per token per layer: h·(d_k + d_v), h_kv·(d_k + d_v) or r_kv + d_r (MLA)."""
        p = self.preset
        label = f"KV cache ({kind.upper()}), one token, one layer"
        if kind == "mha":
            return Count(p.heads * (p.d_k + p.d_v), f"h·(d_k + d_v) = {p.heads} × ({p.d_k} + {p.d_v})",
                         self.source, "numbers", label)
        if kind == "gqa":
            return Count(p.h_kv * (p.d_k + p.d_v), f"h_kv·(d_k + d_v) = {p.h_kv} × ({p.d_k} + {p.d_v})",
                         self.source, "numbers", label)
        if kind == "mla":
            m = self._mla()
            return Count(m.kv_lora_rank + m.qk_rope_head_dim,
                         f"r_kv + d_r = {m.kv_lora_rank} + {m.qk_rope_head_dim}",
                         f"{SOURCE_V2}; {SOURCE_V3}", "numbers", label)
        raise ValueError(f"unknown KV cache kind {kind!r}; expected one of {', '.join(KV_KINDS)}")

    def kv_bytes_per_token_layer(self, kind: str = "mha") -> Count:
        """Bytes cached per token per layer: numbers × 2 (bf16)."""
        nums = self.kv_numbers_per_token_layer(kind)
        b = self.preset.bytes_per_number
        return Count(nums.value * b, f"({nums.formula}) × {b} bytes", join_sources(nums.source, SOURCE_BF16),
                     "bytes", f"KV cache ({kind.upper()}), one token, one layer")

    def kv_bytes_per_token(self, kind: str = "mha") -> Count:
        """Bytes cached per token over all L layers."""
        per_layer = self.kv_bytes_per_token_layer(kind)
        L = self.preset.layers
        return Count(per_layer.value * L, f"{fmt(per_layer.value)} bytes × L = {fmt(per_layer.value)} × {L}",
                     per_layer.source, "bytes", f"KV cache ({kind.upper()}), one token, {L} layers")

    def kv_ratio(self, kind: str = "mha", versus: str = "mla") -> Count:
        """How many times more cache ``kind`` needs than ``versus`` (e.g. 56.9× for MHA vs MLA)."""
        a, b = self.kv_bytes_per_token_layer(kind), self.kv_bytes_per_token_layer(versus)
        return Count(a.value / b.value, f"{fmt(a.value)} / {fmt(b.value)} bytes",
                     join_sources(a.source, b.source), "×", f"KV cache {kind.upper()} / {versus.upper()}")

    def attention_map_cells(self, n: int) -> Count:
        """Scores in one head's attention map for a context of n tokens: n²."""
        return Count(n * n, f"n² = {fmt(n)}²", SOURCE_VAS, "cells", f"attention map, one head (n = {fmt(n)})")

    def attention_map_bytes(self, n: int) -> Count:
        """Bytes of one head's n × n attention map in bf16."""
        b = self.preset.bytes_per_number
        return Count(n * n * b, f"n²·{b} = {fmt(n)}² × {b}", f"{SOURCE_VAS}; {SOURCE_BF16}", "bytes",
                     f"attention map, one head (n = {fmt(n)})")

    # ---- real MLA shapes ----------------------------------------------------------------------
    def _mla(self) -> MLAShape:
        if self.preset.mla is None:
            raise ValueError(f"preset {self.preset.name!r} has no MLA shapes")
        return self.preset.mla

    def mla_matrices(self) -> dict[str, tuple[int, int]]:
        """The five MLA projection matrices as (rows, cols) (DeepSeek-V2 eqs 9-19)."""
        p, m = self.preset, self._mla()
        return {
            "wq_a": (p.d_model, m.q_lora_rank),  # d → r_q
            "wq_b": (m.q_lora_rank, p.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)),  # r_q → h·(128+64)
            "wkv_a": (p.d_model, m.kv_lora_rank + m.qk_rope_head_dim),  # d → r_kv + d_r
            "wkv_b": (m.kv_lora_rank, p.heads * (m.qk_nope_head_dim + m.v_head_dim)),  # r_kv → h·(128+128)
            "wo": (p.heads * m.v_head_dim, p.d_model),  # h·d_v → d
        }

    def mla_weights(self) -> Count:
        shapes = self.mla_matrices()
        return Count(sum(r * c for r, c in shapes.values()),
                     " + ".join(f"{fmt(r)}×{fmt(c)} ({k})" for k, (r, c) in shapes.items()),
                     f"{SOURCE_V2}; {SOURCE_V3}", "weights", "MLA projections, one layer")

    def mla_flops(self) -> Count:
        w = self.mla_weights()
        return Count(2 * w.value, f"2 × weights = 2 × {fmt(w.value)}", join_sources(SOURCE_K, w.source),
                     "FLOPs", "MLA projections, one token, one layer")

    def mla_score_scale(self) -> Count:
        m = self._mla()
        width = m.qk_nope_head_dim + m.qk_rope_head_dim
        return Count(width ** -0.5, f"1/√(d_k + d_r) = 1/√({m.qk_nope_head_dim} + {m.qk_rope_head_dim})",
                     f"{SOURCE_V2}; {SOURCE_V3}", "", "MLA score scale")

    # ---- the talk's counter -------------------------------------------------------------------
    def counter_steps(self, n: int = 7) -> list[Count]:
        """The FLOP counter built up step by step for a sentence of n tokens, one layer.

        W_Q for one head and one token; × n tokens; + W_K; + W_V; × h heads; + W_O; + QKᵀ and
        weights × V (each of the n tokens against n keys); finally per token: constant + per_n·n.
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"n must be an integer >= 1, got {n!r}")
        p, src = self.preset, self.flop_source
        if p.kv_heads is not None or p.d_k != p.d_v:
            raise ValueError(f"counter_steps assumes plain multi-head with d_k = d_v; preset {p.name!r} "
                             f"has h={p.heads}, h_kv={p.h_kv}, d_k={p.d_k}, d_v={p.d_v}")
        one = self.flops_projection_per_head("W_Q").value  # 2·d·d_k
        proj = 4 * one * p.heads * n
        context = self.flops_per_token().per_n * n * n
        steps = [
            (one, f"2·d·d_k = 2 × {fmt(p.d_model)} × {p.d_k}", "W_Q, one head, one token"),
            (one * n, f"2·d·d_k·n = {fmt(one)} × {n}", f"W_Q, one head, {n} tokens"),
            (2 * one * n, f"2 × 2·d·d_k·n = 2 × {fmt(one * n)}", f"W_Q + W_K, one head, {n} tokens"),
            (3 * one * n, f"3 × 2·d·d_k·n = 3 × {fmt(one * n)}", f"W_Q + W_K + W_V, one head, {n} tokens"),
            (3 * one * n * p.heads, f"3 × 2·d·d_k·n·h = {fmt(3 * one * n)} × {p.heads}",
             f"W_Q + W_K + W_V, all {p.heads} heads, {n} tokens"),
            (proj, f"4 × 2·d·d_k·n·h = {fmt(3 * one * n * p.heads)} + {fmt(one * n * p.heads)}",
             f"+ W_O, {n} tokens"),
            (proj + context, f"{fmt(proj)} + 2·h·(d_k + d_v)·n² = {fmt(proj)} + {fmt(context)}",
             f"+ QKᵀ and weights × V, {n} tokens"),
        ]
        counts = [Count(v, f, src, "FLOPs", label) for v, f, label in steps]
        return [*counts, self.flops_per_token().at(n)]

    def summary(self, n: int) -> dict[str, dict]:
        """Every count for a context of n tokens, as plain dicts (for a JSON API)."""
        out = {
            "weights_per_head": self.weights_per_head("W_Q"),
            "weights_per_matrix": self.weights_per_matrix("W_Q"),
            "weights_attention": self.weights_attention(),
            "flops_projection_per_head": self.flops_projection_per_head("W_Q"),
            "flops_projection": self.flops_projection("W_Q"),
            "flops_projections": self.flops_projections(),
            "flops_scores": self.flops_scores().at(n),
            "flops_weighted_values": self.flops_weighted_values().at(n),
            "flops_per_token": self.flops_per_token().at(n),
            "context_equals_projections_at": self.context_equals_projections_at(),
            "kv_bytes_per_token_layer_mha": self.kv_bytes_per_token_layer("mha"),
            "kv_bytes_per_token_mha": self.kv_bytes_per_token("mha"),
            "kv_bytes_per_token_layer_gqa": self.kv_bytes_per_token_layer("gqa"),
            "kv_bytes_per_token_gqa": self.kv_bytes_per_token("gqa"),
            "attention_map_cells": self.attention_map_cells(n),
            "attention_map_bytes": self.attention_map_bytes(n),
        }
        if self.preset.mla is not None:
            out |= {
                "kv_bytes_per_token_layer_mla": self.kv_bytes_per_token_layer("mla"),
                "kv_bytes_per_token_mla": self.kv_bytes_per_token("mla"),
                "kv_ratio_mha_mla": self.kv_ratio("mha", "mla"),
                "mla_weights": self.mla_weights(),
                "mla_flops": self.mla_flops(),
            }
        return {k: c.to_dict() for k, c in out.items()}


def costs(preset: str | Preset) -> Costs:
    """The cost model of a preset, given by name or as a :class:`Preset`."""
    return Costs(preset if isinstance(preset, Preset) else get_preset(preset))
