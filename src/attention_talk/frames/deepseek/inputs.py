"""Chapter 4's inputs: MLA and DSA at small illustrative widths, with seeded weights.

The pictures run multi-head latent attention and DeepSeek sparse attention at widths a slide can
show — d = 8, 2 heads, query latent 6, key/value latent 4, content width 4, RoPE width 2, value
width 4 — with weights drawn from the deck's seed (``numpy.random.default_rng``), so every number
is the engine's and none is trained. The token rows X are seeded too; the deck's sentence only
names them. The indexer (2 heads, keeping the top 3 keys) is designed, not seeded: DeepSeek-V3.2
trains its indexer to match the dense attention's distribution, so ours imitates the head it
selects for — head 1 reads the head's own absorbed query against the cache rows [c_KV ; k_R]
(its index key), head 2 a seeded blend of that query and noise, each weighted one half. The real sizes (the cost
model's preset) are quoted beside them on the slides, and say so.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine import attend
from attention_talk.engine.attention import Attention
from attention_talk.engine.dsa import DSA, dsa
from attention_talk.engine.mla import MLAAbsorbed, MLAExplicit, MLAWeights, absorbed, explicit, seeded_weights
from attention_talk.frames.build_context import BuildContext

SIZES = {"d": 8, "heads": 2, "r_q": 6, "r_kv": 4, "d_nope": 4, "d_r": 2, "d_v": 4}
INDEX_HEADS, TOP_K = 2, 3
INDEX_WIDTH = SIZES["r_kv"] + SIZES["d_r"]  # the index key is the cache row
NOISE = 0.5  # head 2's query: (1 − NOISE)·q + NOISE·seeded noise
HEAD = 0  # the head the pictures follow


@dataclass(frozen=True)
class Toy:
    """Everything the chapter draws, computed once per deck."""

    tokens: list[str]
    focus: int
    x: np.ndarray  # (n, d)
    w: MLAWeights
    exp: MLAExplicit
    absb: MLAAbsorbed
    q_i: np.ndarray  # (H_I, n, d_I)
    k_i: np.ndarray  # (n, d_I)
    w_i: np.ndarray  # (n, H_I)
    q: np.ndarray  # (n, r_kv + d_r)  head HEAD's absorbed query [q_C W_UKᵀ ; q_R]
    kv: np.ndarray  # (n, r_kv + d_r)  the cache rows [c_KV ; k_R]
    sparse: DSA  # top-k over the cache rows
    dense: Attention  # the same query against every earlier cache row


def build(tokens: list[str], focus: int, seed: int) -> Toy:
    rng = np.random.default_rng(seed)
    n, s = len(tokens), SIZES
    x = rng.normal(size=(n, s["d"]))
    w = seeded_weights(**s, seed=seed + 1)
    exp, absb = explicit(x, w), absorbed(x, w)
    lat = absb.latents
    q = np.concatenate([absb.q_latent[HEAD], lat.q_r[HEAD]], axis=1)  # (n, r_kv + d_r)
    kv = lat.cached  # (n, r_kv + d_r)
    noise = rng.normal(size=q.shape) * np.abs(q).mean()
    q_i = np.stack([q, (1 - NOISE) * q + NOISE * noise])  # (H_I, n, d_I)
    k_i, w_i = kv, np.full((n, INDEX_HEADS), 1 / INDEX_HEADS)
    sparse = dsa(q, kv, lat.c_kv, q_i, k_i, w_i, TOP_K, scale=w.scale)  # values: the latent itself
    dense = attend(q, kv, lat.c_kv, causal=True, scale=w.scale)
    return Toy(tokens=tokens, focus=focus, x=x, w=w, exp=exp, absb=absb, q_i=q_i,
               k_i=k_i, w_i=w_i, q=q, kv=kv, sparse=sparse, dense=dense)


def toy(ctx: BuildContext) -> Toy:
    """The deck's toy, built once per build context."""
    return ctx.cached("deepseek", lambda: build(ctx.tokens, ctx.focus, ctx.deck.story.seed))
