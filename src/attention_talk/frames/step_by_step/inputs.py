"""The story model: designed illustrative inputs at DeepSeek-V3.2's real sizes.

Chapter 1 follows one sentence ("the old dog sleeps by the fire") through one attention head of
width d_k = 128 reading tokens of width d = 7,168. Real weights would need a real model, so the
inputs here are *designed*: every number the talk shows is then computed from them by the engine.

How they are designed (all randomness from ``numpy.random.default_rng(seed)``):

- Each word has a word class (determiner, adjective, noun, verb, preposition). ``F`` is the
  (n, f) one-hot table of classes, f = 5.
- ``P`` is (f, d) with orthonormal rows: the directions of the embedding space that carry the
  class. Embeddings are ``X = EMBED_GAIN · F P + noise``, noise ~ N(0, EMBED_NOISE²) on all d
  coordinates, so a row looks like an ordinary dense vector. The noise row is drawn per *word*
  (seeded by the seed and the word's text), so a word has the same row wherever it stands, as
  an embedding lookup gives it: "bat" has the same numbers in every sentence.
- ``R`` is (f, d_k) with orthonormal rows. The projections are
  ``W_Q = Pᵀ B R · c / EMBED_GAIN``, ``W_K = Pᵀ R · c / EMBED_GAIN`` and
  ``W_V = Pᵀ R_V · c_v / EMBED_GAIN``, plus small noise, so that ``Q Kᵀ ≈ c² F B Fᵀ``.
  ``B`` (``AFFINITY``) says how much a word of one class looks for a word of another;
  c² = √d_k cancels the 1/√d_k scale, so the *scaled* scores are close to ``F B Fᵀ``.
- ``W_O`` (d_k, d) maps a head's 128 numbers back to the stream's 7,168.

The designed affinities make "dog" (a noun) look mostly for the adjective before it ("old"), a
little at itself and hardly at "the"; the tests check the computed weights keep that story.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from attention_talk.engine import Attention, attend

CLASSES = ("det", "adj", "noun", "verb", "prep")
WORD_CLASS = {
    "the": "det", "a": "det", "an": "det", "its": "det", "his": "det", "her": "det",
    "old": "adj", "young": "adj", "big": "adj", "small": "adj", "warm": "adj", "brown": "adj",
    "lazy": "adj", "quick": "adj",
    "dog": "noun", "cat": "noun", "fire": "noun", "bat": "noun", "mat": "noun", "cave": "noun",
    "ball": "noun", "boy": "noun", "girl": "noun", "bank": "noun", "river": "noun",
    "sleeps": "verb", "runs": "verb", "sat": "verb", "swung": "verb", "flew": "verb", "sees": "verb",
    "he": "noun", "she": "noun", "from": "prep",
    "by": "prep", "on": "prep", "in": "prep", "near": "prep", "under": "prep", "at": "prep",
}
# AFFINITY[c_query, c_key]: the scaled score a word of class c_query gives a key of class c_key.
# Rows: what each class looks for. Columns in CLASSES order.
AFFINITY = np.array([
    #  det   adj   noun  verb  prep
    [1.0, 0.0, 0.4, 0.0, 0.0],  # det: itself, a little to nouns
    [1.3, 1.0, 0.0, 0.0, 0.0],  # adj: the determiner it follows
    [0.2, 2.3, 1.4, 0.3, 1.0],  # noun: its adjective most, itself some
    [0.0, 0.3, 2.4, 1.0, 0.0],  # verb: its subject noun
    [0.0, 0.0, 0.6, 2.0, 1.0],  # prep: the verb it modifies
])
EMBED_GAIN = 25.0
EMBED_NOISE = 0.2
WEIGHT_NOISE = 0.012  # about 1/√d: the scale of a freshly initialised weight


@dataclass(frozen=True)
class StoryModel:
    """Designed embeddings and one head's projections for a sentence."""

    tokens: tuple[str, ...]
    x: np.ndarray  # (n, d)    token embeddings
    w_q: np.ndarray  # (d, d_k)
    w_k: np.ndarray  # (d, d_k)
    w_v: np.ndarray  # (d, d_v)
    w_o: np.ndarray  # (d_v, d)

    @property
    def n(self) -> int:
        return len(self.tokens)

    @cached_property
    def q(self) -> np.ndarray:
        return self.x @ self.w_q  # (n, d_k)

    @cached_property
    def k(self) -> np.ndarray:
        return self.x @ self.w_k  # (n, d_k)

    @cached_property
    def v(self) -> np.ndarray:
        return self.x @ self.w_v  # (n, d_v)

    def attention(self, *, causal: bool = True) -> Attention:
        return attend(self.q, self.k, self.v, causal=causal)

    @cached_property
    def head_output(self) -> np.ndarray:
        return self.attention(causal=True).output @ self.w_o  # (n, d)

    def index(self, token: str) -> int:
        """Position of the first occurrence of ``token``."""
        return self.tokens.index(token)


def _orthonormal_rows(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    q, _ = np.linalg.qr(rng.standard_normal((cols, rows)))  # (cols, rows), orthonormal columns
    return q.T  # (rows, cols)


def word_noise(token: str, seed: int, d: int) -> np.ndarray:
    """The word-specific part of an embedding row: the same for the same word and seed."""
    digest = hashlib.blake2b(f"{seed}\x00{token.lower()}".encode(), digest_size=8).digest()
    return np.random.default_rng(int.from_bytes(digest, "little")).normal(0.0, EMBED_NOISE, d)  # (d,)


def word_class(token: str) -> int:
    return CLASSES.index(WORD_CLASS.get(token.lower(), "noun"))


def _embed(tokens: list[str] | tuple[str, ...], p: np.ndarray, seed: int) -> np.ndarray:
    """Embedding rows: EMBED_GAIN · (one-hot class) · P + the word's own noise."""
    n, d = len(tokens), p.shape[1]
    feats = np.zeros((n, len(CLASSES)))  # (n, f)
    feats[np.arange(n), [word_class(t) for t in tokens]] = 1.0
    noise = np.stack([word_noise(t, seed, d) for t in tokens]) if n else np.zeros((0, d))  # (n, d)
    return EMBED_GAIN * feats @ p + noise  # (n, d)


def embed_words(tokens: list[str] | tuple[str, ...], *, seed: int, d: int = 7168) -> np.ndarray:
    """Only the embeddings of ``build_story(tokens, seed=seed).x``, without drawing the weights."""
    rng = np.random.default_rng(seed)
    return _embed(tokens, _orthonormal_rows(rng, len(CLASSES), d), seed)  # (n, d)


def build_story(tokens: list[str] | tuple[str, ...], *, seed: int, d: int = 7168, d_k: int = 128
                ) -> StoryModel:
    """Designed inputs for ``tokens`` at width ``d`` with one head of width ``d_k``."""
    rng = np.random.default_rng(seed)
    f = len(CLASSES)
    p = _orthonormal_rows(rng, f, d)  # (f, d): drawn first, so embed_words() can redraw it alone
    r = _orthonormal_rows(rng, f, d_k)  # (f, d_k)
    r_v = _orthonormal_rows(rng, f, d_k)  # (f, d_v)
    c = d_k ** 0.25  # c² = √d_k cancels the 1/√d_k scale
    x = _embed(tokens, p, seed)  # (n, d)
    w_q = p.T @ AFFINITY @ r * (c / EMBED_GAIN) + rng.normal(0, WEIGHT_NOISE, (d, d_k))  # (d, d_k)
    w_k = p.T @ r * (c / EMBED_GAIN) + rng.normal(0, WEIGHT_NOISE, (d, d_k))  # (d, d_k)
    w_v = p.T @ r_v * (4.0 / EMBED_GAIN) + rng.normal(0, WEIGHT_NOISE, (d, d_k))  # (d, d_v)
    w_o = r_v.T @ p * 2.0 + rng.normal(0, WEIGHT_NOISE, (d_k, d))  # (d_v, d)
    return StoryModel(tuple(tokens), x, w_q, w_k, w_v, w_o)
