"""The illustrative chain: one multi-head attention layer over a user's own tokens, with seeded
random weights (the lab's illustrative source, ``POST /api/attention`` and its derivations).

Token embeddings are random but stable: a token's row depends only on the seed and the token's
text, so the same word gets the same starting row wherever it stands. Positions are added with
Vaswani's sinusoidal encoding. Projections are drawn from ``default_rng(seed)`` with variance
1/d_model (so scores stay in a readable range). Each tensor is computed when first asked for (the
maps need Q and K alone); ``wire.py`` writes the ones a request names, ``sizes.py`` counts them
before any work is done.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache

import numpy as np

from attention_talk.engine import Attention, GroupedMaps, grouped_maps, sinusoidal_positions
from attention_talk.engine.checks import check_heads
from attention_talk.engine.costs import Preset, costs


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


def _normal(rng: np.random.Generator, std: float, shape: tuple[int, int]) -> np.ndarray:
    """``rng.normal(0, std, shape)``, the same numbers (the same draws, times std), a little faster."""
    a = rng.standard_normal(shape)
    a *= std
    return a


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


class Projections:
    """W_Q, W_K, W_V (d, h·d_k) and W_O (h·d_k, d) for one seed, drawn in that order from
    ``default_rng(seed)``, read-only.

    Drawing them is most of a request's time at d = 512 with a new seed, and the attention maps (the
    default response) need W_Q and W_K alone. So W_Q and W_K are drawn at once, the generator's state
    after them is kept, and W_V and W_O are drawn from that state when first asked for: the same
    numbers as drawing all four in a row, at half the cost when they are never asked for."""

    def __init__(self, d_model: int, heads: int, d_k: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self._shapes = ((d_model, heads * d_k), (heads * d_k, d_model))
        std = 1.0 / np.sqrt(d_model)
        self.w_q = _read_only(_normal(rng, std, self._shapes[0]))  # (d, h·d_k)
        self.w_k = _read_only(_normal(rng, std, self._shapes[0]))  # (d, h·d_k)
        self._after_k = rng.bit_generator.state
        self._rest: tuple[np.ndarray, np.ndarray] | None = None
        self._lock = threading.Lock()  # two requests of one seed may ask at once
        self.nbytes = 4 * self.w_q.nbytes  # what the four take once drawn (the cache counts this)

    @property
    def drawn_all(self) -> bool:
        """Whether W_V and W_O have been drawn yet."""
        return self._rest is not None

    def _drawn_rest(self) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            if self._rest is None:
                bits = np.random.PCG64()
                bits.state = self._after_k
                rng = np.random.Generator(bits)
                (d, hd), _ = self._shapes
                w_v = _read_only(_normal(rng, 1.0 / np.sqrt(d), (d, hd)))  # (d, h·d_k)
                w_o = _read_only(_normal(rng, 1.0 / np.sqrt(hd), (hd, d)))  # (h·d_k, d)
                self._rest = (w_v, w_o)
            return self._rest

    @property
    def w_v(self) -> np.ndarray:
        return self._drawn_rest()[0]

    @property
    def w_o(self) -> np.ndarray:
        return self._drawn_rest()[1]

    def __iter__(self):
        """W_Q, W_K, W_V, W_O (drawing the last two if they are not yet)."""
        return iter((self.w_q, self.w_k, self.w_v, self.w_o))


_projections: OrderedDict[tuple[int, int, int, int], Projections] = OrderedDict()
_projections_lock = threading.Lock()  # requests run in worker threads


def projections(d_model: int, heads: int, d_k: int, seed: int) -> Projections:
    """The projections of this seed (:class:`Projections`). The same seed always gives the same
    weights, so recent ones are kept (read-only), least recently used first out, at most
    PROJECTION_CACHE_BYTES in all."""
    key = (d_model, heads, d_k, seed)
    with _projections_lock:
        if key in _projections:
            _projections.move_to_end(key)
            return _projections[key]
    drawn = Projections(d_model, heads, d_k, seed)
    with _projections_lock:
        _projections[key] = drawn
        while sum(w.nbytes for w in _projections.values()) > PROJECTION_CACHE_BYTES:
            _projections.popitem(last=False)
    return drawn


@dataclass(frozen=True)
class IllustrativeChain:
    """One multi-head layer over the tokens, each tensor computed when first asked for: the
    attention maps need Q and K only, so a request for the weights never draws W_V or W_O, nor
    multiplies by them."""

    tokens: list[str]
    x: np.ndarray  # (n, d) embeddings + positions
    weights: Projections  # W_Q, W_K (d, h·d_k); W_V (d, h·d_k) and W_O (h·d_k, d) drawn when first used
    heads: int
    causal: bool
    temperature: float

    def _split(self, w: np.ndarray) -> np.ndarray:
        """X·W split into heads: (h, n, d_k), each head's block contiguous."""
        n = self.x.shape[0]
        return np.ascontiguousarray((self.x @ w).reshape(n, self.heads, -1).transpose(1, 0, 2))

    @cached_property
    def q(self) -> np.ndarray:  # (h, n, d_k)
        return self._split(self.weights.w_q)

    @cached_property
    def k(self) -> np.ndarray:  # (h, n, d_k)
        return self._split(self.weights.w_k)

    @cached_property
    def v(self) -> np.ndarray:  # (h, n, d_k)
        return self._split(self.weights.w_v)

    @cached_property
    def maps(self) -> GroupedMaps:  # scores, masked, weights: each (h, n, n)
        return grouped_maps(self.q, self.k, causal=self.causal, temperature=self.temperature)

    @cached_property
    def output(self) -> np.ndarray:  # (h, n, d_k): each head's weights · V
        return self.maps.weights @ self.v

    @cached_property
    def concat(self) -> np.ndarray:  # (n, h·d_k): the heads' outputs side by side
        h, n, d_k = self.output.shape
        return self.output.transpose(1, 0, 2).reshape(n, h * d_k)

    @cached_property
    def final(self) -> np.ndarray:  # (n, d): the layer's output, concat · W_O
        return self.concat @ self.weights.w_o

    def head(self, i: int) -> Attention:
        """Head ``i`` (0-based) with every intermediate, as :func:`engine.attend` gives it."""
        m = self.maps
        return Attention(q=self.q[i], k=self.k[i], v=self.v[i], scores=m.scores[i], scale=m.scale,
                         scaled=m.scaled[i], mask=m.mask, masked=m.masked[i], weights=m.weights[i],
                         output=self.output[i], temperature=m.temperature)

    def tensor(self, name: str) -> np.ndarray:
        """One of ``sizes.TENSORS``: per head (h, n, ·), or for the layer (n, ·)."""
        if name in ("scores", "masked", "weights"):
            return getattr(self.maps, name)
        return getattr(self, name)


@cache
def one_blas_thread_per_request() -> None:
    """Limit BLAS to one thread, for good, in this process (called by the attention route's worker).

    The chain's products are small (64 rows at most), so OpenBLAS's own threads buy nothing and,
    on busy cores, cost a great deal: each product waits for threads to wake. Measured on 2 busy
    cores (load average 4–5), 64 tokens, d 512, 8 heads: the chain took 104 ms (median) with
    OpenBLAS's default two threads, 7 ms with one. The server's parallelism is its requests (the
    attention Gate gives each its worker thread); the model already computes with one thread
    (``model/threads.py``), and a model run that began before this call leaves it in place."""
    from attention_talk.model.threads import one_blas_thread_for_good

    one_blas_thread_for_good()


def illustrative_chain(tokens: list[str], *, d_model: int, heads: int, d_k: int, causal: bool,
                       temperature: float, seed: int) -> IllustrativeChain:
    """The chain for ``tokens``, nothing computed yet beyond X (see :class:`IllustrativeChain`)."""
    check_heads(heads, heads)
    n = len(tokens)
    x = np.stack([token_embedding(t, d_model, seed) for t in tokens])  # (n, d)
    x = x + positions(n, d_model)  # (n, d)
    return IllustrativeChain(tokens, x, projections(d_model, heads, d_k, seed), heads=heads, causal=causal,
                             temperature=float(temperature))


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
