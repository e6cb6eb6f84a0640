"""The forward pass of a Llama-architecture decoder in NumPy, attention through the engine.

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
The weights are float32 (one copy per machine, memory-mapped from ``weights_cache``); a product with
them runs in float32 and hands back float64 (``times``), and everything else (the residual stream,
norms, attention, softmax) is float64. Weights given as float64 (a reference in the tests) are
multiplied in float64.
:class:`Decoder` runs the same layers one token at a time over a KV cache (``engine.decode``), and
:func:`extend` runs new tokens after a known prefix: causal, so the prefix's keys, values, residuals
and attention rows are those of any longer text that starts with it.

Letters used in the shape comments:
    n  tokens   d  model width   h  query heads   g  key/value heads   d_k  head width
    f  SwiGLU hidden width       V  vocabulary    L  layers
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from attention_talk.engine.attention import causal_mask
from attention_talk.engine.decode import KVCache, decode_step_grouped
from attention_talk.engine.gqa import GroupedAttention, grouped_attend
from attention_talk.engine.rope import rope
from attention_talk.model.gguf_file import Config, ModelFileError


@dataclass(frozen=True)
class Layer:
    """One layer's weights (float32, or float64 for a reference), projections as stored: (out, in),
    applied as x @ W.T (``times``)."""

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
    embed: np.ndarray  # (V, d), made once at load: rows looked up, and the logits' table when tied
    layers: list[Layer]
    out_norm: np.ndarray  # (d,)
    output: np.ndarray | None  # (V, d), None when tied to ``embed``

    @property
    def nbytes(self) -> int:
        arrays = [self.embed, self.out_norm, *(a for lw in self.layers for a in vars(lw).values())]
        return sum(a.nbytes for a in arrays) + (self.output.nbytes if self.output is not None else 0)


def load_weights(reader, config: Config, dtype=np.float32) -> Weights:
    """Dequantise every tensor once (llama.cpp tensor names: ``blk.{i}.attn_q.weight`` …) into
    ``dtype`` (float32; float64 for a reference)."""
    from gguf.quants import dequantize

    index = {t.name: t for t in reader.tensors}

    def get(name: str) -> np.ndarray:
        if name not in index:
            raise ModelFileError(f"GGUF file lacks tensor {name!r}")
        t = index[name]
        return np.ascontiguousarray(dequantize(t.data, t.tensor_type), dtype=dtype)

    layers = [Layer(*(get(f"blk.{i}.{part}.weight") for part in (
        "attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm", "ffn_gate", "ffn_up", "ffn_down")))
        for i in range(config.layers)]
    weights = Weights(embed=get("token_embd.weight"), layers=layers, out_norm=get("output_norm.weight"),
                      output=None if config.tied_embeddings else get("output.weight"))
    h, g, dk, d = config.heads, config.kv_heads, config.head_dim, config.d_model
    first = layers[0]
    if first.wq.shape != (h * dk, d) or first.wk.shape != (g * dk, d) or weights.embed.shape != (config.vocab, d):
        raise ModelFileError(f"tensor shapes disagree with the metadata: W_Q {first.wq.shape}, W_K {first.wk.shape}, "
                             f"embedding {weights.embed.shape} for h={h}, h_kv={g}, d_k={dk}, d={d}, V={config.vocab}")
    return weights


ROWS = 1  # float32 products run on blocks of this many token rows, aligned to the token positions: one row
# at a time (a matrix-vector product per token) keeps a typed letter's run to its own new tokens


def times(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w.T in w's precision, as float64: float32 weights (the shared copy) are multiplied in
    float32, with no float64 copy of them made.

    A float32 product's last bits depend on how BLAS blocks the rows, so a token's numbers would
    change with how many tokens were computed with it (a text extended from a kept prefix against
    the same text computed whole). The rows are therefore multiplied in blocks of ``ROWS``, zero-padded,
    and every caller's first row is a multiple of ``ROWS`` of the text's tokens (``extend`` starts
    there): a token's row is always computed in the same place of the same-sized block."""
    if w.dtype != np.float32:
        return x @ w.T
    n = x.shape[0]
    if n % ROWS:
        padded = np.zeros((n + (-n) % ROWS, x.shape[1]), dtype=np.float32)
        padded[:n] = x
    else:
        padded = x.astype(np.float32)
    out = np.empty((padded.shape[0], w.shape[0]), dtype=np.float32)
    wt = w.T
    for start in range(0, padded.shape[0], ROWS):
        np.matmul(padded[start:start + ROWS], wt, out=out[start:start + ROWS])
    return out[:n].astype(np.float64)


def embed_rows(weights: Weights, ids) -> np.ndarray:
    """The embedding rows of ``ids``, float64: (n, d)."""
    return np.asarray(weights.embed[np.asarray(ids)], dtype=np.float64)


def rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """x / √(mean(x²) + ε) · gain, over the last axis."""
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def silu(x: np.ndarray) -> np.ndarray:
    return x / (1.0 + np.exp(-x))


def feed_forward(x: np.ndarray, lw: Layer, eps: float) -> np.ndarray:
    """The SwiGLU block's contribution to the residual stream: (n, d)."""
    h = rms_norm(x, lw.ffn_norm, eps)  # (n, d)
    return times(silu(times(h, lw.gate)) * times(h, lw.up), lw.down)  # (n, f) → (n, d)


def project(x: np.ndarray, lw: Layer, config: Config, positions: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """This layer's queries (h, n, d_k) and keys (g, n, d_k) after RoPE, and values (g, n, d_k), each
    C-contiguous (so a head's rows are a view, never a copy, and a text extended keeps that layout)."""
    n, dk = x.shape[0], config.head_dim
    h = rms_norm(x, lw.attn_norm, config.norm_eps)  # (n, d)
    q = times(h, lw.wq).reshape(n, config.heads, dk).transpose(1, 0, 2)  # (h, n, d_k)
    k = times(h, lw.wk).reshape(n, config.kv_heads, dk).transpose(1, 0, 2)  # (g, n, d_k)
    v = times(h, lw.wv).reshape(n, config.kv_heads, dk).transpose(1, 0, 2)  # (g, n, d_k)
    return (np.ascontiguousarray(rope(q, positions, base=config.rope_base, pairs="adjacent")),
            np.ascontiguousarray(rope(k, positions, base=config.rope_base, pairs="adjacent")),
            np.ascontiguousarray(v))


Cancel = Callable[[], bool]  # asked between layers: True stops the run (its client has gone)


class RunCancelled(Exception):
    """A run stopped between layers because its ``cancel`` check said so; nothing it computed is kept."""


def check_cancel(cancel: Cancel | None, layer: int, layers: int) -> None:
    """RunCancelled when ``cancel`` says stop, before ``layer`` (0-based) of ``layers``."""
    if cancel is not None and cancel():
        raise RunCancelled(f"stopped before layer {layer} of {layers}")


@dataclass(frozen=True)
class Trace:
    """Everything one full pass computed."""

    residual: np.ndarray  # (L + 1, n, d): the embeddings, then the stream after each layer
    attention: list[GroupedAttention]  # per layer: q, k, v, scores, weights (h, n, n), output
    hidden: np.ndarray  # (n, d) the last layer's stream after the final RMSNorm


def forward(weights: Weights, config: Config, ids: list[int], cancel: Cancel | None = None) -> Trace:
    """Every layer over the whole sequence at once (causal attention). ``cancel`` is asked before
    each layer; when it says stop, RunCancelled (a layer takes tens of milliseconds at 64 tokens, so
    a run whose client has gone stops within one)."""
    x = embed_rows(weights, ids)  # (n, d)
    positions = np.arange(len(ids))
    residual, attention = [x], []
    for i, lw in enumerate(weights.layers):
        check_cancel(cancel, i, len(weights.layers))
        q, k, v = project(x, lw, config, positions)
        att = grouped_attend(q, k, v, causal=True)  # weights (h, n, n)
        x = x + times(att.concat, lw.wo)  # (n, h·d_k) → (n, d)
        x = x + feed_forward(x, lw, config.norm_eps)
        residual.append(x)
        attention.append(att)
    return Trace(residual=np.stack(residual), attention=attention,
                 hidden=rms_norm(x, weights.out_norm, config.norm_eps))


def extend(weights: Weights, config: Config, prefix: Trace, ids: list[int], reuse: int,
           cancel: Cancel | None = None) -> Trace:
    """The :class:`Trace` of ``forward(ids)``, computing only tokens ``reuse`` … n − 1 (``cancel``
    as in :func:`forward`; ``prefix`` is only read, so a cancelled run leaves it as it was).

    ``prefix`` is a trace of a text whose first ``reuse`` token ids are ``ids[:reuse]`` (it may be
    longer: only its first ``reuse`` rows are read). With a causal mask nothing about tokens
    0 … reuse − 1 depends on later tokens, except the raw scores of their queries with the new keys
    (Q·Kᵀ is kept unmasked), which are one small product per layer.
    """
    n = len(ids)
    if not 0 < reuse <= min(n, prefix.residual.shape[1]):
        raise ValueError(f"reuse must be between 1 and the shorter text's length, got {reuse} for {n} tokens")
    if reuse < n:
        reuse -= reuse % ROWS  # the new rows start a block of ROWS, where the whole text's would (``times``)
        if reuse == 0:
            return forward(weights, config, ids, cancel)
    old = [_head_rows(att, reuse) for att in prefix.attention]
    if reuse == n:  # a prefix of the earlier text: every number is already there
        attention = old
        return Trace(residual=prefix.residual[:, :n], attention=attention, hidden=prefix.hidden[:n])
    x = embed_rows(weights, ids[reuse:])  # (m, d) the new tokens
    positions = np.arange(reuse, n)
    residual, attention = [x], []
    mask = causal_mask(n)  # (n, n), the same for every layer
    mask.flags.writeable = False
    for i, (lw, o) in enumerate(zip(weights.layers, old, strict=True)):
        check_cancel(cancel, i, len(weights.layers))
        q, k, v = project(x, lw, config, positions)  # (h, m, d_k), (g, m, d_k), (g, m, d_k)
        new = grouped_attend(q, np.concatenate([o.k, k], axis=1), np.concatenate([o.v, v], axis=1), causal=True)
        x = x + times(new.concat, lw.wo)  # (m, d)
        x = x + feed_forward(x, lw, config.norm_eps)
        residual.append(x)
        attention.append(_assemble(o, new, mask))
    return Trace(residual=np.concatenate([prefix.residual[:, :reuse], np.stack(residual)], axis=1),
                 attention=attention,
                 hidden=np.concatenate([prefix.hidden[:reuse], rms_norm(x, weights.out_norm, config.norm_eps)]))


def _head_rows(att: GroupedAttention, k: int) -> GroupedAttention:
    """The first ``k`` tokens' rows (and columns) of one layer's attention."""
    return GroupedAttention(q=att.q[:, :k], k=att.k[:, :k], v=att.v[:, :k], scores=att.scores[:, :k, :k],
                            scale=att.scale, scaled=att.scaled[:, :k, :k], mask=att.mask[:k, :k],
                            masked=att.masked[:, :k, :k], weights=att.weights[:, :k, :k],
                            output=att.output[:, :k], temperature=att.temperature)


def _assemble(old: GroupedAttention, new: GroupedAttention, mask: np.ndarray) -> GroupedAttention:
    """One layer's attention over all n tokens: the old rows, the new rows (``new``: queries of
    tokens k … n − 1 over every key), and the old queries' raw scores with the new keys; ``mask``
    is the (n, n) causal mask (shared, read-only)."""
    h, k = old.q.shape[:2]
    g, n = new.k.shape[:2]
    scores = np.empty((h, n, n))
    scores[:, :k, :k] = old.scores
    scores[:, :k, k:] = (old.q.reshape(g, h // g, k, -1) @ new.k[:, None, k:].swapaxes(-1, -2)).reshape(h, k, n - k)
    scores[:, k:] = new.scores
    weights = np.zeros((h, n, n))
    weights[:, :k, :k] = old.weights
    weights[:, k:] = new.weights
    scaled = scores * old.scale
    return GroupedAttention(q=np.concatenate([old.q, new.q], axis=1), k=new.k, v=new.v, scores=scores,
                            scale=old.scale, scaled=scaled, mask=mask, masked=scaled + mask, weights=weights,
                            output=np.concatenate([old.output, new.output], axis=1), temperature=old.temperature)


def logits(weights: Weights, hidden: np.ndarray) -> np.ndarray:
    """hidden (n, d) times the output matrix: (n, V) float64. Ask for the rows needed only: the
    next token after a text needs its last row, one (d,) × (V, d) product."""
    table = weights.embed if weights.output is None else weights.output  # (V, d)
    return times(hidden, table)


class Decoder:
    """The same layers one token at a time, each layer keeping one KV cache per key/value head."""

    def __init__(self, weights: Weights, config: Config) -> None:
        self.weights, self.config = weights, config
        self.caches = [[KVCache(config.head_dim, config.head_dim) for _ in range(config.kv_heads)]
                       for _ in weights.layers]
        self.position = 0

    def step(self, token_id: int) -> np.ndarray:
        """Feed one token; the logits (V,) for the token after it."""
        x = embed_rows(self.weights, [token_id])  # (1, d)
        positions = np.array([self.position])
        for lw, caches in zip(self.weights.layers, self.caches, strict=True):
            q, k, v = project(x, lw, self.config, positions)  # (h, 1, d_k), (g, 1, d_k), (g, 1, d_k)
            att = decode_step_grouped(q[:, 0], k[:, 0], v[:, 0], caches)  # weights (h, 1, t)
            x = x + times(att.concat, lw.wo)
            x = x + feed_forward(x, lw, self.config.norm_eps)
        self.position += 1
        return logits(self.weights, rms_norm(x, self.weights.out_norm, self.config.norm_eps))[0]
