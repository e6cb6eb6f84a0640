"""The live attention API's maths: the whole multi-head chain for a user's own tokens.

Token embeddings are random but stable: a token's row depends only on the seed and the token's
text, so the same word gets the same starting row wherever it stands. Positions are added with
Vaswani's sinusoidal encoding. Projections are drawn from ``default_rng(seed)`` with variance
1/d_model (so scores stay in a readable range).

A response carries only the tensors its request names in ``include`` (``TENSORS``; by default
``DEFAULT_INCLUDE``: the weights alone), and ``response_numbers`` counts the numbers a request
would return before any work is done, so the web layer can refuse one that is too large. Only the
tensors asked for are computed (the maps need Q and K alone), and their numbers are written as
integers in units of 10^-digits by default (``NUMBER_FORMS``: "scaled", or "decimal").
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache

import numpy as np
import orjson

from attention_talk.engine import Attention, GroupedMaps, grouped_maps, sinusoidal_positions
from attention_talk.engine.costs import Preset, costs

# The tensor names and sizes live apart, without NumPy: the web app needs them at start-up, this
# module only on its first request (re-exported here).
from attention_talk.lab.sizes import DEFAULT_INCLUDE as DEFAULT_INCLUDE
from attention_talk.lab.sizes import NUMBER_FORMS as NUMBER_FORMS
from attention_talk.lab.sizes import PER_HEAD, TENSORS
from attention_talk.lab.sizes import WHOLE as WHOLE
from attention_talk.lab.sizes import response_numbers as response_numbers


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
class Chain:
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
        """One of TENSORS: per head (h, n, ·), or for the layer (n, ·)."""
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


def run_chain(tokens: list[str], *, d_model: int, heads: int, d_k: int, causal: bool,
              temperature: float, seed: int) -> Chain:
    """The chain for ``tokens``, nothing computed yet beyond X (see :class:`Chain`)."""
    n = len(tokens)
    x = np.stack([token_embedding(t, d_model, seed) for t in tokens])  # (n, d)
    x = x + positions(n, d_model)  # (n, d)
    return Chain(tokens, x, projections(d_model, heads, d_k, seed), heads=heads, causal=causal,
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


NULL = np.iinfo(np.int64).min  # stands for −∞ (a masked score) among integers; written as null
SAFE = 2.0**53  # integers up to this size are exact in every JSON reader (a double's mantissa)


def decimal(a: np.ndarray, digits: int) -> np.ndarray:
    """``a`` rounded to ``digits`` decimals, −∞ as NaN (orjson writes NaN as null)."""
    return np.round(np.where(np.isneginf(a), np.nan, a), digits)


def scaled(a: np.ndarray, digits: int) -> np.ndarray:
    """``a`` in units of 10^-digits, rounded to integers (0.1234 → 1234 with 4 digits): about half
    the bytes of the decimals, and quicker to write. −∞ becomes ``NULL`` (null once written). Should
    any number reach 2^53 (never at the sizes allowed but with 12 digits or more), the integers stay
    floats, which JSON writes as 2000000000000000.0 or 1e+18: the same numbers, still exact to a double."""
    with np.errstate(invalid="ignore", over="ignore"):
        units = np.rint(a * 10.0**digits)
    minus_inf = np.isneginf(a)
    finite = units[~minus_inf]
    if finite.size and not np.abs(finite).max() < SAFE:
        return np.where(minus_inf, np.nan, units)
    ints = np.where(minus_inf, 0.0, units).astype(np.int64)
    ints[minus_inf] = NULL
    return ints


def json_value(a: np.ndarray) -> np.ndarray | orjson.Fragment:
    """A (C-contiguous) array as orjson writes it: integers standing for −∞ become null."""
    if a.dtype == np.int64 and (a == NULL).any():
        return orjson.Fragment(orjson.dumps(a, option=orjson.OPT_SERIALIZE_NUMPY).replace(
            str(NULL).encode(), b"null"))
    return a


def chain_json(chain: Chain, *, d_model: int, heads: int, d_k: int, digits: int = 15,
               include: Iterable[str] = TENSORS, numbers: str = "decimal") -> dict:
    """The response body: only the tensors named in ``include``, each rounded to ``digits``, as
    decimals or as integers in units of 10^-digits (``numbers``, one of NUMBER_FORMS). Only the
    tensors asked for are computed (see :class:`Chain`)."""
    wanted = set(include)
    form = scaled if numbers == "scaled" else decimal
    stacks = {name: form(chain.tensor(name), digits) for name in TENSORS if name in wanted}
    heads_json = [
        {"head": i, **{name: json_value(stacks[name][i]) for name in PER_HEAD if name in wanted}}
        for i in range(heads)
    ]
    out = {
        "tokens": chain.tokens, "d_model": d_model, "heads": heads, "d_k": d_k, "digits": digits,
        "numbers": numbers, "include": [t for t in TENSORS if t in wanted], "scale": float(1.0 / np.sqrt(d_k)),
        "per_head": heads_json,
        "costs": chain_costs(len(chain.tokens), d_model=d_model, heads=heads, d_k=d_k),
    }
    if "concat" in wanted:
        out["concat"] = json_value(stacks["concat"])
    if "final" in wanted:
        out["output"] = json_value(stacks["final"])
    return out
