"""Eight designed heads for chapter 1's "many heads": maps that differ because their weights do.

Chapter 1 follows one designed head (``inputs.py``). A layer has many, each reading something else;
to show that without a trained model, the weights of eight heads are *designed* here, each to read
one thing, and the engine computes their maps from them (``engine.multi_head`` with the causal mask).
What each head is then called comes from measuring its map (``engine.heads``), not from this file.

How they are designed (all randomness from ``numpy.random.default_rng(seed)``):

- A head that reads "the token before" needs to know where each token stands, and the story's
  embeddings carry only the word's class. So these heads read ``X⁺ = X + POSITION_GAIN · E``: the
  story's X plus a designed position code, one orthonormal direction per position (rows of E,
  orthogonal to the story's class directions P), as GPT-2's learned position embeddings add one
  vector per position. A token's features are then φ = (its class one-hot, its position one-hot).
- Head h has a feature affinity ``B_h`` (what a feature looks for in another), ``R_h`` (g, d_k) with
  orthonormal rows and ``W_Q,h = Φᵀ G⁻¹ B_h R_h · c``, ``W_K,h = Φᵀ G⁻¹ R_h · c`` (Φ = the stacked
  directions, G the gains), so the scaled scores are close to
  ``φ_i B_h φ_jᵀ``: c² = √d_k cancels the 1/√d_k scale, as in ``inputs.py``. The noise is drawn on
  B (N(0, AFFINITY_NOISE²) per entry), not on the d × h·d_k weights: the maps are not exactly their
  design, and building the heads draws 8 small tables instead of 29 million numbers.
- ``DESIGNS`` gives each head's B: the token before, itself, the first token, two before, or a word
  class (every word looks for the adjective, the noun, the verb, the preposition before it).
- ``W_V,h`` and ``W_O`` are drawn like the story's (each head's values along its own directions,
  W_O mapping them back to the width d); they make the concatenation and O = concat · W_O real.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine import MultiHead, multi_head
from attention_talk.frames.step_by_step.inputs import (
    CLASSES,
    EMBED_GAIN,
    StoryModel,
    _orthonormal_rows,
    word_class,
)

POSITION_GAIN = 25.0  # as large as a class's part of an embedding row
STRENGTH = 6.0  # the designed scaled score of what a head looks for: e⁶ ≈ 400 times any other key
AFFINITY_NOISE = 0.3  # on every entry of B: no map is exactly its design

# Each head's design: what its queries look for. ("position", k): the token k places back (0: itself);
# ("first", 0): the token at position 0; ("class", c): any word of class c.
DESIGNS: tuple[tuple[str, str, int | str], ...] = (
    ("previous", "position", 1),
    ("self", "position", 0),
    ("first", "first", 0),
    ("two-back", "position", 2),
    ("adjective", "class", "adj"),
    ("noun", "class", "noun"),
    ("verb", "class", "verb"),
    ("preposition", "class", "prep"),
)


@dataclass(frozen=True)
class DesignedHeads:
    """The designed heads on a sentence: their input X⁺, weights and the engine's multi-head run."""

    tokens: tuple[str, ...]
    designs: tuple[str, ...]  # what each head was designed to read (DESIGNS' ids), in head order
    x: np.ndarray  # (n, d)      X⁺: the story's embeddings plus the position code
    w_q: np.ndarray  # (d, h·d_k)
    w_k: np.ndarray  # (d, h·d_k)
    w_v: np.ndarray  # (d, h·d_v)
    w_o: np.ndarray  # (h·d_v, d)
    run: MultiHead  # engine.multi_head(X⁺, W_Q, W_K, W_V, W_O, heads=h, causal=True)

    @property
    def weights(self) -> np.ndarray:
        """Every head's map A_h, (h, n, n)."""
        return np.stack([h.weights for h in self.run.heads])


def affinity(design: tuple[str, str, int | str], n: int) -> np.ndarray:
    """B (g, g) over the features (classes, then positions 0 … n − 1) for one design."""
    f = len(CLASSES)
    b = np.zeros((f + n, f + n))  # (g, g)
    _, how, what = design
    if how == "class":
        b[:f, CLASSES.index(str(what))] = STRENGTH  # every class looks for a word of class `what`
    elif how == "first":
        b[f:, f] = STRENGTH  # every position looks at position 0
    else:
        back = int(what)
        for i in range(back, n):
            b[f + i, f + i - back] = STRENGTH  # position i looks at position i − back
    return b


def _class_directions(seed: int, d: int) -> np.ndarray:
    """The story's P (f, d): the first draw of ``inputs.build_story`` with the same seed."""
    return _orthonormal_rows(np.random.default_rng(seed), len(CLASSES), d)


def _position_directions(rng: np.random.Generator, p: np.ndarray, n: int) -> np.ndarray:
    """E (n, d): orthonormal rows, orthogonal to the class directions P."""
    g = rng.standard_normal((n, p.shape[1]))  # (n, d)
    g -= (g @ p.T) @ p  # remove the class directions
    q, _ = np.linalg.qr(g.T)  # (d, n)
    return q.T  # (n, d)


def build_heads(story: StoryModel, *, seed: int) -> DesignedHeads:
    """The designed heads on the story's sentence, at the story's widths, run by the engine."""
    n, d = story.x.shape
    d_k = story.w_q.shape[1]
    f = len(CLASSES)
    if f + n > d_k:
        raise ValueError(f"designed heads need classes + positions ≤ d_k = {d_k}, got {f} + {n}")
    rng = np.random.default_rng([seed, 2])  # its own stream: the story's draws are unchanged
    p = _class_directions(seed, d)  # (f, d)
    e = _position_directions(rng, p, n)  # (n, d)
    phi = np.vstack([p, e])  # (g, d)
    inv_gain = np.concatenate([np.full(f, 1 / EMBED_GAIN), np.full(n, 1 / POSITION_GAIN)])  # (g,)
    x = story.x + POSITION_GAIN * e  # (n, d): position i gets direction e_i
    c = d_k ** 0.25
    h = len(DESIGNS)
    w_q, w_k, w_v = (np.empty((d, h * d_k)) for _ in range(3))  # (d, h·d_k), filled head by head
    w_o = np.empty((h * d_k, d))  # (h·d_v, d)
    read = phi.T * inv_gain  # (d, g): reads φ from a row of X⁺
    for i, design in enumerate(DESIGNS):
        cols = slice(i * d_k, (i + 1) * d_k)
        r = _orthonormal_rows(rng, f + n, d_k)  # (g, d_k)
        r_v = _orthonormal_rows(rng, f + n, d_k)  # (g, d_v)
        b = affinity(design, n) + rng.normal(0, AFFINITY_NOISE, (f + n, f + n))  # (g, g)
        w_q[:, cols] = read @ b @ r * c  # (d, d_k)
        w_k[:, cols] = read @ r * c  # (d, d_k)
        w_v[:, cols] = read @ r_v * 4.0  # (d, d_v)
        w_o[cols] = r_v.T @ phi * (2.0 / h)  # (d_v, d)
    run = multi_head(x, w_q, w_k, w_v, w_o, heads=len(DESIGNS), causal=True)
    return DesignedHeads(story.tokens, tuple(design[0] for design in DESIGNS), x, w_q, w_k, w_v, w_o, run)


def class_of(tokens: tuple[str, ...] | list[str]) -> list[str]:
    """Each token's word class (the story's table), for the measures' targets."""
    return [CLASSES[word_class(t)] for t in tokens]
