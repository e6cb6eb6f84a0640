"""Chapter 4's inputs: MLA and DSA at small illustrative widths, with seeded weights.

The pictures run multi-head latent attention and DeepSeek sparse attention at widths a slide can
show — d = 8, 2 heads, query latent 6, key/value latent 4, content width 4, RoPE width 2, value
width 4; an indexer of 2 heads × 4 keeping the top 3 keys — with weights drawn from the deck's
seed (``numpy.random.default_rng``), so every number is the engine's and none is trained. The
token rows X are seeded too; the deck's sentence only names them. The real sizes (the cost
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
INDEX_HEADS, INDEX_WIDTH, TOP_K = 2, 4, 3
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
    w_iq: np.ndarray  # (r_q, H_I·d_I)   indexer queries from the query latent
    w_ik: np.ndarray  # (d, d_I)         the indexer's key
    w_iw: np.ndarray  # (d, H_I)         the indexer's head weights
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
    w_iq = rng.normal(size=(s["r_q"], INDEX_HEADS * INDEX_WIDTH)) / np.sqrt(s["r_q"])
    w_ik = rng.normal(size=(s["d"], INDEX_WIDTH)) / np.sqrt(s["d"])
    w_iw = rng.normal(size=(s["d"], INDEX_HEADS)) / np.sqrt(s["d"])
    lat = absb.latents
    q_i = (lat.c_q @ w_iq).reshape(n, INDEX_HEADS, INDEX_WIDTH).transpose(1, 0, 2)
    k_i, w_i = x @ w_ik, x @ w_iw
    q = np.concatenate([absb.q_latent[HEAD], lat.q_r[HEAD]], axis=1)
    kv = lat.cached
    sparse = dsa(q, kv, lat.c_kv, q_i, k_i, w_i, TOP_K, scale=w.scale)  # values: the latent itself
    dense = attend(q, kv, lat.c_kv, causal=True, scale=w.scale)
    return Toy(tokens=tokens, focus=focus, x=x, w=w, exp=exp, absb=absb, w_iq=w_iq, w_ik=w_ik, w_iw=w_iw,
               q_i=q_i, k_i=k_i, w_i=w_i, q=q, kv=kv, sparse=sparse, dense=dense)


def toy(ctx: BuildContext) -> Toy:
    """The deck's toy, built once per build context."""
    return ctx.cached("deepseek", lambda: build(ctx.tokens, ctx.focus, ctx.deck.story.seed))
