"""The model object: tokenize, run every layer, hand back attention maps, residuals and next tokens.

    >>> from attention_talk.model import load
    >>> model = load()                                   # the packaged SmolLM2-135M, ~0.5 GB of float32
    >>> run = model.run("The capital of France is", layers=[0], heads=[0, 4])
    >>> run.tokens, run.next_tokens[0].token             # (['The', ' capital', …], ' Paris')
    >>> run.head(0, 4).weights                           # (n, n), rows sum to 1, 0 above the diagonal

Results of recent texts are kept (least recently used first out), so asking again for other layers
or heads of the same text does not run the model again. The full traces of the last few texts are
kept too: a new text that starts with the same tokens (a student typing at the end of a sentence)
runs only its new tokens through the model (``forward.extend``), with the same numbers. Both are
bounded together in bytes (``cache_bytes``: ATTENTION_TALK_MODEL_CACHE_BYTES in the server), counted
as the buffers they keep alive: a run's maps are views of its trace's arrays, and a view keeps its
whole base, so each base array counts once, in full (``held_buffers``).

A run takes an optional ``cancel`` check, asked between layers (``forward.RunCancelled``): a
server stops the work of a client that has gone. A cancelled run keeps nothing: results enter the
caches only once complete.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from attention_talk.engine.attention import softmax
from attention_talk.model.forward import Cancel, Decoder, Trace, Weights, extend, forward, logits
from attention_talk.model.gguf_file import Config
from attention_talk.model.kept import HeadMaps, HeadTable, Held, held_buffers
from attention_talk.model.threads import one_blas_thread
from attention_talk.model.tokenizer import Tokenizer, TokenizerError

MAX_TOKENS = 64
WANTS = ("weights", "q", "k", "v", "scores")
CACHE_BYTES = 256 * 2**20  # runs and traces together; the newest of each is always kept
CACHE_ENTRIES = 32
TRACE_ENTRIES = 4  # full traces kept for texts that extend them (a 64-token trace is about 70 MB)


@dataclass(frozen=True)
class NextToken:
    id: int
    token: str
    p: float


@dataclass(frozen=True)
class Run:
    """What one text did to the model."""

    text: str
    ids: list[int]
    tokens: list[str]  # each token's text (' old'); bytes cut mid-character shown as <0xF0>
    pieces: list[str]  # the byte-level token strings as stored ('Ġold')
    layers: list[int]
    heads: list[int]
    maps: Mapping[tuple[int, int], HeadMaps]  # (layer, head) → maps, for the layers and heads asked (HeadTable)
    residual: np.ndarray  # (L + 1, n, d): embeddings, then the stream after each layer
    next_tokens: list[NextToken]  # the most likely next tokens, most likely first
    logits: np.ndarray = field(repr=False)  # (V,) for the token after the last one

    def head(self, layer: int, head: int) -> HeadMaps:
        try:
            return self.maps[(layer, head)]
        except KeyError:
            raise KeyError(f"layer {layer}, head {head} was not asked for; asked: layers {self.layers}, "
                           f"heads {self.heads}") from None

    @cached_property
    def buffers(self) -> dict[int, np.ndarray]:
        """The buffers this run keeps alive (``held_buffers``)."""
        maps = self.maps.arrays() if isinstance(self.maps, HeadTable) else (
            a for m in self.maps.values() for a in (m.weights, m.q, m.k, m.v, m.scores))
        return held_buffers([self.residual, self.logits, *maps])

    @property
    def nbytes(self) -> int:
        """The bytes this run keeps alive: every buffer its arrays view, once and in full."""
        return sum(b.nbytes for b in self.buffers.values())


def _freeze(trace: Trace) -> Trace:
    """Make every array of ``trace`` read-only: later texts extend it and runs hand out views of it."""
    arrays = [trace.residual, trace.hidden, *(a for att in trace.attention for a in vars(att).values())]
    for a in arrays:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False
    return trace


def trace_buffers(trace: Trace) -> dict[int, np.ndarray]:
    """The buffers a kept trace holds alive (a trace extended from a longer one views its arrays)."""
    return held_buffers([trace.residual, trace.hidden, *(a for att in trace.attention for a in vars(att).values()
                                                         if isinstance(a, np.ndarray))])


def top_indices(p: np.ndarray, top: int) -> np.ndarray:
    """``np.argsort(-p, kind="stable")[:top]`` (largest first, ties by index) without sorting all of p:
    every entry at least the top-th largest value, sorted."""
    if not 0 < top < p.size:
        return np.argsort(-p, kind="stable")[:top]
    threshold = np.partition(p, p.size - top)[p.size - top]  # the top-th largest
    candidates = np.flatnonzero(p >= threshold)  # ascending indices, ties included
    return candidates[np.argsort(-p[candidates], kind="stable")][:top]


def pick(name: str, asked: list[int] | tuple[int, ...] | None, count: int) -> list[int]:
    """The indices asked for, checked (0-based, each once, in order); None means all."""
    if asked is None:
        return list(range(count))
    out = []
    for i in asked:
        if not isinstance(i, (int, np.integer)) or isinstance(i, bool):
            raise ValueError(f"{name}: {i!r} is not an integer")
        if not 0 <= i < count:
            raise ValueError(f"{name}: {i} is out of range; the model has {count} {name} (0–{count - 1})")
        if int(i) not in out:
            out.append(int(i))
    return out


class Model:
    """A loaded model: its sizes (``config``), tokenizer and float32 weights (float64 for a reference).
    ``cache_bytes`` bounds the recent runs and kept traces together (the newest run and the newest
    trace are always kept, so the bound is at least one 64-token result, about 110 MB)."""

    def __init__(self, path: Path, config: Config, tokenizer: Tokenizer, weights: Weights,
                 cache_bytes: int = CACHE_BYTES) -> None:
        self.path, self.config, self.tokenizer, self.weights = path, config, tokenizer, weights
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[tuple, Run] = OrderedDict()
        self._traces: OrderedDict[tuple[int, ...], Trace] = OrderedDict()
        self._trace_buffers: dict[tuple[int, ...], dict[int, np.ndarray]] = {}
        self._held = Held()  # the buffers of every kept run and trace, each once (``kept.Held``)
        self._used: OrderedDict[tuple[str, tuple], None] = OrderedDict()  # runs and traces, least recent first
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.config.name

    def __repr__(self) -> str:
        c = self.config
        return (f"<Model {c.name!r}: {c.layers} layers, d={c.d_model}, {c.heads} heads / {c.kv_heads} KV heads, "
                f"d_k={c.head_dim}, vocab {c.vocab}>")

    def clear_cache(self) -> None:
        """Forget the recent runs (the next run of any text computes again)."""
        with self._lock:
            self._cache.clear()
            self._traces.clear()
            self._trace_buffers.clear()
            self._held.clear()
            self._used.clear()

    @property
    def kept_bytes(self) -> int:
        """The bytes the kept runs and traces hold alive, each buffer once."""
        with self._lock:
            return self._kept_bytes()

    def _kept_bytes(self) -> int:  # the caller holds the lock
        return self._held.nbytes

    def _touch(self, kind: str, key: tuple) -> None:  # the caller holds the lock
        self._used[(kind, key)] = None
        self._used.move_to_end((kind, key))
        (self._cache if kind == "run" else self._traces).move_to_end(key)

    def _keep_run(self, key: tuple, run: Run) -> None:  # the caller holds the lock
        if key in self._cache:
            self._held.remove(self._cache[key].buffers)
        self._cache[key] = run
        self._held.add(run.buffers)
        self._touch("run", key)
        self._evict()

    def _keep_trace(self, key: tuple[int, ...], trace: Trace) -> None:  # the caller holds the lock
        if key in self._traces:
            self._held.remove(self._trace_buffers[key])
        self._traces[key] = trace
        self._trace_buffers[key] = trace_buffers(trace)
        self._held.add(self._trace_buffers[key])
        self._touch("trace", key)
        self._evict()

    def _evict(self) -> None:
        """Drop the least recently used runs and traces until at most CACHE_ENTRIES runs, TRACE_ENTRIES
        traces and ``cache_bytes`` in all are kept; the newest run and the newest trace stay."""
        while (victim := self._victim()) is not None:
            kind, key = victim
            del self._used[victim]
            if kind == "run":
                self._held.remove(self._cache.pop(key).buffers)
            else:
                del self._traces[key]
                self._held.remove(self._trace_buffers.pop(key))

    def _victim(self) -> tuple[str, tuple] | None:
        newest = {next((u for u in reversed(self._used) if u[0] == kind), None) for kind in ("run", "trace")}
        over = self._kept_bytes() > self.cache_bytes
        for used in self._used:  # least recent first
            crowded = len(self._cache) > CACHE_ENTRIES if used[0] == "run" else len(self._traces) > TRACE_ENTRIES
            if used not in newest and (over or crowded):
                return used
        return None

    def tokenize(self, text: str, max_tokens: int = MAX_TOKENS) -> list[int]:
        """Token ids of ``text``; TokenizerError ('text: …') for empty text, control characters or too many tokens."""
        ids = self.tokenizer.encode(text)
        if not ids:
            raise TokenizerError("text: gives no tokens")
        if len(ids) > max_tokens:
            raise TokenizerError(f"text: {len(ids)} tokens, at most {max_tokens}")
        return ids

    def run(self, text: str, layers: list[int] | None = None, heads: list[int] | None = None,
            want: tuple[str, ...] | list[str] = ("weights",), top: int = 10, max_tokens: int = MAX_TOKENS,
            cancel: Cancel | None = None) -> Run:
        """Run ``text`` through every layer; maps for the ``layers`` and ``heads`` asked (None = all, 0-based).

        ``want`` names what each head returns, of: weights, q, k, v, scores. ``cancel`` is asked
        between layers: when it returns True the run stops with ``RunCancelled`` and keeps nothing.
        """
        unknown = [w for w in want if w not in WANTS]
        if unknown or isinstance(want, str):
            raise ValueError(f"want: unknown {unknown or want!r}; choose from {', '.join(WANTS)}")
        layers_, heads_ = pick("layers", layers, self.config.layers), pick("heads", heads, self.config.heads)
        ids = self.tokenize(text, max_tokens)
        full = self._full_run(text, ids, tuple(w for w in WANTS if w in want), top, cancel)
        maps = full.maps.select(layers_, heads_)
        return Run(text=text, ids=list(full.ids), tokens=list(full.tokens), pieces=list(full.pieces),
                   layers=layers_, heads=heads_,
                   maps=maps, residual=full.residual, next_tokens=full.next_tokens, logits=full.logits)

    def _full_run(self, text: str, ids: list[int], want: tuple[str, ...], top: int, cancel: Cancel | None) -> Run:
        key = (tuple(ids), want, top)
        with self._lock:
            if key in self._cache:
                self._touch("run", key)
                return self._cache[key]
        run = self._compute(text, ids, want, top, cancel)
        with self._lock:
            self._keep_run(key, run)
        return run

    def _longest_prefix(self, ids: list[int]) -> tuple[Trace | None, int]:
        """The kept trace sharing the most leading tokens with ``ids`` (the newest of equals), and how many."""
        best, reuse = None, 0
        with self._lock:
            for key, trace in reversed(self._traces.items()):
                same = next((i for i, (a, b) in enumerate(zip(key, ids, strict=False)) if a != b),
                            min(len(key), len(ids)))
                if same > reuse:
                    best, reuse = trace, same
        return best, reuse

    def trace(self, ids: list[int], cancel: Cancel | None = None) -> Trace:
        """Every layer's numbers for ``ids``, computing only the tokens after the longest kept prefix;
        kept once complete (``cancel``: see ``run``)."""
        prefix, reuse = self._longest_prefix(ids)
        with one_blas_thread():
            trace = _freeze(extend(self.weights, self.config, prefix, ids, reuse, cancel) if prefix is not None
                            else forward(self.weights, self.config, ids, cancel))
        with self._lock:
            self._keep_trace(tuple(ids), trace)
        return trace

    def _compute(self, text: str, ids: list[int], want: tuple[str, ...], top: int, cancel: Cancel | None) -> Run:
        trace = self.trace(ids, cancel)
        with one_blas_thread():
            last = logits(self.weights, trace.hidden[-1:])[0]  # (V,)
        last.flags.writeable = False  # shared by every caller that asks for this text again
        maps = HeadTable(trace.attention, want, range(self.config.layers), range(self.config.heads))
        return Run(text=text, ids=list(ids), tokens=[self.tokenizer.display(i) for i in ids],
                   pieces=self.tokenizer.pieces(ids), layers=list(range(self.config.layers)),
                   heads=list(range(self.config.heads)), maps=maps, residual=trace.residual,
                   next_tokens=self.next_tokens(last, top), logits=last)

    def next_tokens(self, last_logits: np.ndarray, top: int = 10) -> list[NextToken]:
        p = softmax(last_logits)  # (V,)
        best = top_indices(p, top)
        return [NextToken(id=int(i), token=self.tokenizer.display(int(i)), p=float(p[i])) for i in best]

    def logits(self, ids: list[int]) -> np.ndarray:
        """Logits (n, V) of a full pass over ``ids``: row i predicts the token after position i."""
        with one_blas_thread():
            return logits(self.weights, forward(self.weights, self.config, list(ids)).hidden)

    def decode_logits(self, ids: list[int]) -> np.ndarray:
        """The same logits (n, V), one token at a time through the KV cache (engine.decode)."""
        decoder = Decoder(self.weights, self.config)
        with one_blas_thread():
            return np.stack([decoder.step(int(i)) for i in ids])
