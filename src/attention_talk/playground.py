"""The live attention API's maths: the whole multi-head chain for a user's own tokens.

Token embeddings are random but stable: a token's row depends only on the seed and the token's
text, so the same word gets the same starting row wherever it stands. Positions are added with
Vaswani's sinusoidal encoding. Projections are drawn from ``default_rng(seed)`` with variance
1/d_model (so scores stay in a readable range).

A response carries only the tensors its request names in ``include`` (``TENSORS``; by default
``DEFAULT_INCLUDE``: the weights alone), and ``response_numbers`` counts the numbers a request
would return before any work is done, so the web layer can refuse one that is too large.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from attention_talk.engine import MultiHead, multi_head, sinusoidal_positions
from attention_talk.engine.costs import Preset, costs

# The tensor names and sizes live apart, without NumPy: the web app needs them at start-up, this
# module only on its first request (re-exported here).
from attention_talk.playground_tensors import DEFAULT_INCLUDE as DEFAULT_INCLUDE
from attention_talk.playground_tensors import PER_HEAD, TENSORS
from attention_talk.playground_tensors import WHOLE as WHOLE
from attention_talk.playground_tensors import response_numbers as response_numbers


@dataclass(frozen=True)
class Chain:
    tokens: list[str]
    x: np.ndarray  # (n, d) embeddings + positions
    w_q: np.ndarray  # (d, h·d_k)
    w_k: np.ndarray  # (d, h·d_k)
    w_v: np.ndarray  # (d, h·d_k)
    w_o: np.ndarray  # (h·d_k, d)
    result: MultiHead


@lru_cache(maxsize=4096)
def token_embedding(token: str, d: int, seed: int) -> np.ndarray:
    """A stable random row for ``token``: the same text and seed always give the same row
    (kept read-only in a cache, since it never changes)."""
    digest = hashlib.blake2b(f"{seed}\x00{token}".encode(), digest_size=8).digest()
    row = np.random.default_rng(int.from_bytes(digest, "little")).normal(0.0, 1.0, d)  # (d,)
    row.flags.writeable = False
    return row


@lru_cache(maxsize=64)
def positions(n: int, d: int) -> np.ndarray:
    """Sinusoidal position rows, read-only and cached by shape."""
    pe = sinusoidal_positions(n, d)  # (n, d)
    pe.flags.writeable = False
    return pe


PROJECTION_CACHE_BYTES = 64 * 2**20  # a few recent seeds' weights; the largest allowed (67 MB) is never kept
_projections: OrderedDict[tuple[int, int, int, int], tuple[np.ndarray, ...]] = OrderedDict()
_projections_lock = threading.Lock()  # requests run in worker threads


def projections(d_model: int, heads: int, d_k: int, seed: int) -> tuple[np.ndarray, ...]:
    """W_Q, W_K, W_V (d, h·d_k) and W_O (h·d_k, d) for this seed. Drawing them is most of a
    request's time at d = 512, and the same seed always gives the same weights, so recent ones are
    kept (read-only), least recently used first out, at most PROJECTION_CACHE_BYTES in all."""
    key = (d_model, heads, d_k, seed)
    with _projections_lock:
        if key in _projections:
            _projections.move_to_end(key)
            return _projections[key]
    rng = np.random.default_rng(seed)
    std = 1.0 / np.sqrt(d_model)
    w_q, w_k, w_v = (rng.normal(0.0, std, (d_model, heads * d_k)) for _ in range(3))  # (d, h·d_k)
    w_o = rng.normal(0.0, 1.0 / np.sqrt(heads * d_k), (heads * d_k, d_model))  # (h·d_k, d)
    drawn = (w_q, w_k, w_v, w_o)
    for w in drawn:
        w.flags.writeable = False
    with _projections_lock:
        _projections[key] = drawn
        while sum(w.nbytes for ws in _projections.values() for w in ws) > PROJECTION_CACHE_BYTES:
            _projections.popitem(last=False)
    return drawn


def run_chain(tokens: list[str], *, d_model: int, heads: int, d_k: int, causal: bool,
              temperature: float, seed: int) -> Chain:
    n = len(tokens)
    x = np.stack([token_embedding(t, d_model, seed) for t in tokens])  # (n, d)
    x = x + positions(n, d_model)  # (n, d)
    w_q, w_k, w_v, w_o = projections(d_model, heads, d_k, seed)
    result = multi_head(x, w_q, w_k, w_v, w_o, heads=heads, causal=causal, temperature=temperature)
    return Chain(tokens, x, w_q, w_k, w_v, w_o, result)


def chain_costs(n: int, *, d_model: int, heads: int, d_k: int) -> dict[str, dict]:
    """The cost model's counts for these dimensions (one layer, bf16 cache)."""
    preset = Preset(name="custom", d_model=d_model, heads=heads, d_k=d_k, d_v=d_k, layers=1,
                    source="the request's dimensions")
    c = costs(preset)
    out = {
        "weights_attention": c.weights_attention(),
        "flops_per_token": c.flops_per_token().at(n),
        "kv_bytes_per_token_layer": c.kv_bytes_per_token_layer("mha"),
        "attention_map_cells": c.attention_map_cells(n),
    }
    return {k: v.to_dict() for k, v in out.items()}


def _json_matrix(a: np.ndarray, digits: int = 15) -> np.ndarray:
    """For orjson (OPT_SERIALIZE_NUMPY), which writes rows of floats and NaN as null: so −∞ (a
    masked score) becomes NaN, hence null, which JSON can carry. Rounded to ``digits`` decimals:
    a float printed in full takes about 19 bytes, one rounded to 6 decimals about 9."""
    return np.round(np.where(np.isneginf(a), np.nan, a), digits).astype(np.float64, copy=False)


def chain_json(chain: Chain, *, d_model: int, heads: int, d_k: int, digits: int = 15,
               include: Iterable[str] = TENSORS) -> dict:
    """The response body: only the tensors named in ``include``, each rounded to ``digits``."""
    wanted = set(include)

    def m(a: np.ndarray) -> np.ndarray:
        return _json_matrix(a, digits)

    heads_json = [
        {"head": i + 1, **{name: m(getattr(h, name)) for name in PER_HEAD if name in wanted}}
        for i, h in enumerate(chain.result.heads)
    ]
    out = {
        "tokens": chain.tokens, "d_model": d_model, "heads": heads, "d_k": d_k, "digits": digits,
        "include": [t for t in TENSORS if t in wanted], "scale": chain.result.heads[0].scale,
        "per_head": heads_json,
        "costs": chain_costs(len(chain.tokens), d_model=d_model, heads=heads, d_k=d_k),
    }
    if "concat" in wanted:
        out["concat"] = m(chain.result.concat)
    if "final" in wanted:
        out["output"] = m(chain.result.output)
    return out
