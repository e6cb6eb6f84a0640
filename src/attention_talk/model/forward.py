"""The forward pass of a Llama-architecture decoder, in NumPy float64, attention through the engine.

One layer (Touvron et al. 2023, "LLaMA", arXiv:2302.13971, §2.2), x the residual stream (n, d):

    h = RMSNorm(x) · g_attn                         (Zhang & Sennrich 2019, arXiv:1910.07467)
    q, k, v = h W_Q, h W_K, h W_V                   split into h query and h_kv key/value heads
    q, k = RoPE(q), RoPE(k)                         engine.rope, adjacent pairs (llama.cpp's layout)
    a = GQA(q, k, v, causal)                        engine.gqa: softmax(q kᵀ/√d_k + M) v per head
    x = x + concat(a) W_O
    h = RMSNorm(x) · g_ffn
    x = x + (SiLU(h W_gate) ⊙ h W_up) W_down        SwiGLU (Shazeer 2020, arXiv:2002.05202)

then logits = RMSNorm(x) · g_out · Eᵀ (E the token embedding when the output layer is tied).
Every head of a layer is computed in one batched product (``grouped_attend``), none in a loop.
:class:`Decoder` runs the same layers one token at a time over a KV cache (``engine.decode``).

Letters used in the shape comments:
    n  tokens   d  model width   h  query heads   g  key/value heads   d_k  head width
    f  SwiGLU hidden width       V  vocabulary    L  layers
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine.decode import KVCache, decode_step_grouped
from attention_talk.engine.gqa import GroupedAttention, grouped_attend
from attention_talk.engine.rope import rope
from attention_talk.model.gguf_file import Config, ModelFileError

LOGIT_CHUNK = 8192  # vocabulary rows turned into float64 at a time when computing logits


@dataclass(frozen=True)
class Layer:
    """One layer's weights, float64, projections as stored: (out, in), applied as x @ W.T."""

    attn_norm: np.ndarray  # (d,)
    wq: np.ndarray  # (h·d_k, d)
    wk: np.ndarray  # (g·d_k, d)
    wv: np.ndarray  # (g·d_k, d)
    wo: np.ndarray  # (d, h·d_k)
    ffn_norm: np.ndarray  # (d,)
    gate: np.ndarray  # (f, d)
    up: np.ndarray  # (f, d)
    down: np.ndarray  # (d, f)


@dataclass(frozen=True)
class Weights:
    embed: np.ndarray  # (V, d) float32: rows looked up, logits computed in float64 chunks
    layers: list[Layer]
    out_norm: np.ndarray  # (d,)
    output: np.ndarray | None  # (V, d) float32, None when tied to ``embed``

    @property
    def nbytes(self) -> int:
        arrays = [self.embed, self.out_norm, *(a for lw in self.layers for a in vars(lw).values())]
        return sum(a.nbytes for a in arrays) + (self.output.nbytes if self.output is not None else 0)


def load_weights(reader, config: Config) -> Weights:
    """Dequantise every tensor once (llama.cpp tensor names: ``blk.{i}.attn_q.weight`` …)."""
    from gguf.quants import dequantize

    index = {t.name: t for t in reader.tensors}

    def get(name: str, dtype=np.float64) -> np.ndarray:
        if name not in index:
            raise ModelFileError(f"GGUF file lacks tensor {name!r}")
        t = index[name]
        return np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=dtype)

    layers = [Layer(*(get(f"blk.{i}.{part}.weight") for part in (
        "attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")))
        for i in range(config.layers)]
    weights = Weights(embed=get("token_embd.weight", np.float32), layers=layers, out_norm=get("output_norm.weight"),
                      output=None if config.tied_embeddings else get("output.weight", np.float32))
    h, g, dk, d = config.heads, config.kv_heads, config.head_dim, config.d_model
    first = layers[0]
    if first.wq.shape != (h * dk, d) or first.wk.shape != (g * dk, d) or weights.embed.shape != (config.vocab, d):
        raise ModelFileError(f"tensor shapes disagree with the metadata: W_Q {first.wq.shape}, W_K {first.wk.shape}, "
                             f"embedding {weights.embed.shape} for h={h}, h_kv={g}, d_k={dk}, d={d}, V={config.vocab}")
    return weights


def rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """x / √(mean(x²) + ε) · gain, over the last axis."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def feed_forward(x: np.ndarray, lw: Layer, eps: float) -> np.ndarray:
    """The SwiGLU block's contribution to the residual stream: (n, d)."""
    h = rms_norm(x, lw.ffn_norm, eps)  # (n, d)
    return (silu(h @ lw.gate.T) * (h @ lw.up.T)) @ lw.down.T  # (n, f) → (n, d)


def project(x: np.ndarray, lw: Layer, config: Config, positions: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This layer's queries (h, n, d_k) and keys (g, n, d_k) after RoPE, and values (g, n, d_k)."""
    n, dk = x.shape[0], config.head_dim
    h = rms_norm(x, lw.attn_norm, config.norm_eps)  # (n, d)
    q = (h @ lw.wq.T).reshape(n, config.heads, dk).transpose(1, 0, 2)  # (h, n, d_k)
    k = (h @ lw.wk.T).reshape(n, config.kv_heads, dk).transpose(1, 0, 2)  # (g, n, d_k)
    v = (h @ lw.wv.T).reshape(n, config.kv_heads, dk).transpose(1, 0, 2)  # (g, n, d_k)
    return (rope(q, positions, base=config.rope_base, pairs="adjacent"),
            rope(k, positions, base=config.rope_base, pairs="adjacent"), v)


@dataclass(frozen=True)
class Trace:
    """Everything one full pass computed."""

    residual: np.ndarray  # (L + 1, n, d): the embeddings, then the stream after each layer
    attention: list[GroupedAttention]  # per layer: q, k, v, scores, weights (h, n, n), output
    hidden: np.ndarray  # (n, d) the last layer's stream after the final RMSNorm


def forward(weights: Weights, config: Config, ids: list[int]) -> Trace:
    """Every layer over the whole sequence at once (causal attention)."""
    x = weights.embed[np.asarray(ids)].astype(np.float64)  # (n, d)
    positions = np.arange(len(ids))
    residual, attention = [x], []
    for lw in weights.layers:
        q, k, v = project(x, lw, config, positions)
        att = grouped_attend(q, k, v, causal=True)  # weights (h, n, n)
        x = x + att.concat @ lw.wo.T  # (n, h·d_k) → (n, d)
        x = x + feed_forward(x, lw, config.norm_eps)
        residual.append(x)
        attention.append(att)
    return Trace(residual=np.stack(residual), attention=attention,
                 hidden=rms_norm(x, weights.out_norm, config.norm_eps))


def logits(weights: Weights, hidden: np.ndarray) -> np.ndarray:
    """hidden (n, d) times the output matrix, in float64: (n, V)."""
    table = weights.embed if weights.output is None else weights.output  # (V, d)
    out = np.empty((hidden.shape[0], table.shape[0]))
    for start in range(0, table.shape[0], LOGIT_CHUNK):
        out[:, start:start + LOGIT_CHUNK] = hidden @ table[start:start + LOGIT_CHUNK].astype(np.float64).T
    return out


class Decoder:
    """The same layers one token at a time, each layer keeping one KV cache per key/value head."""

    def __init__(self, weights: Weights, config: Config) -> None:
        self.weights, self.config = weights, config
        self.caches = [[KVCache(config.head_dim, config.head_dim) for _ in range(config.kv_heads)]
                       for _ in weights.layers]
        self.position = 0

    def step(self, token_id: int) -> np.ndarray:
        """Feed one token; the logits (V,) for the token after it."""
        x = self.weights.embed[[token_id]].astype(np.float64)  # (1, d)
        positions = np.array([self.position])
        for lw, caches in zip(self.weights.layers, self.caches, strict=True):
            q, k, v = project(x, lw, self.config, positions)  # (h, 1, d_k), (g, 1, d_k), (g, 1, d_k)
            att = decode_step_grouped(q[:, 0], k[:, 0], v[:, 0], caches)  # weights (h, 1, t)
            x = x + att.concat @ lw.wo.T
            x = x + feed_forward(x, lw, self.config.norm_eps)
        self.position += 1
        return logits(self.weights, rms_norm(x, self.weights.out_norm, self.config.norm_eps))[0]
