"""Designed inputs for chapter 2, "The walkthrough" (deck ``attention-walkthrough``).

Chapter 2 works at toy sizes so every number fits on screen. Nothing here is a trained model; the
inputs are *designed* so the story is visible, and every number the talk shows is then computed
from them by the engine. How they are designed:

- **Vocabulary and tokens.** A 20-word vocabulary (``VOCAB``); a token is a whole word and its id
  is its index in the list (a real tokenizer splits into sub-word pieces; the slide says so).
- **Embedding table** ``E`` (V, 4). Each word has four hand-set features, in ``FEATURES`` order:
  water, money, thing (how noun-like), grammar (function words). Seeded noise N(0, 0.03²) is
  added so rows look like ordinary learned numbers. "bank" is half water, half money.
- **Positions.** Vaswani et al.'s sinusoids at d = 4, added at strength ``POSITION_STRENGTH`` so
  the four word features stay readable in a four-number toy.
- **One head** (d = 4 → d_k = d_v = 3). ``W_Q`` makes thing-like words ask for water and money
  evidence; ``W_K`` advertises a word's water and money; ``W_V`` carries water, money and thing;
  ``W_O`` (3, 4) maps back. So "bank" reads "river" and "boat" in one sentence and "cash" and
  "paid" in the other, and its contextual row (input + attention update) leans the matching way.
- **Encoder–decoder toy** (section 2): a tanh RNN, h_t = tanh(W_x x_t + W_h h_{t−1}), with a
  small seeded recurrent matrix so each state is mostly its own word. The decoder state for the
  output word "Bälle" is designed as what sets "balls" apart from the other source words (its own
  state minus their mean), so its attention weights favour that source state while still mixing
  the others.
- **Multi-head example** (section 7): exactly the rows and selector projections of FACTS.md.
- **Specialised heads** (section 7, ``specialists``): d_model = 8, the four word features (no noise)
  followed by four position features [cos ωp, sin ωp, cos 2ωp, sin 2ωp], ω = π/4. Two causal heads of
  width 8/2 = 4. Head 1 ("previous word") matches on the position half: W_Q rotates position p back
  to p − 1 (gain ``PREV_GAIN``) and W_K reads the position half, so q_i · k_j peaks at j = i − 1.
  Head 2 ("long-range reference") matches on the word half: a noun (thing) asks for water and keys
  advertise water (gain ``REF_GAIN``), so "bank" reaches back to "river" and "flooded". Both heads'
  W_V carry the word half; W_O averages the two heads into the word half, so a token's output is a
  blend of other rows, not a copy of one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from attention_talk.engine import Attention, attend, embed, sinusoidal_positions

FEATURES = ("water", "money", "thing", "grammar")
# word: (water, money, thing, grammar)
WORDS: dict[str, tuple[float, float, float, float]] = {
    "<pad>": (0.0, 0.0, 0.0, 0.0),
    "the": (0.0, 0.0, 0.0, 1.0),
    "a": (0.0, 0.0, 0.0, 0.9),
    "boat": (0.8, 0.0, 0.8, 0.0),
    "drifted": (0.6, 0.0, 0.1, 0.2),
    "toward": (0.0, 0.0, 0.0, 0.8),
    "river": (1.0, 0.0, 0.7, 0.0),
    "bank": (0.5, 0.5, 0.9, 0.0),
    "she": (0.0, 0.0, 0.3, 0.6),
    "paid": (0.0, 0.8, 0.1, 0.2),
    "cash": (0.0, 1.0, 0.8, 0.0),
    "into": (0.0, 0.0, 0.0, 0.8),
    "water": (1.0, 0.0, 0.6, 0.0),
    "money": (0.0, 1.0, 0.6, 0.0),
    "dogs": (0.4, 0.0, 0.5, 0.3),
    "chase": (0.0, 0.1, 0.1, 0.3),
    "red": (0.2, 0.2, 0.2, 0.1),
    "balls": (0.0, 0.0, 0.9, 0.1),
    "flooded": (0.9, 0.0, 0.2, 0.1),
    "loan": (0.0, 0.9, 0.7, 0.0),
}
VOCAB: tuple[str, ...] = tuple(WORDS)
SENTENCE_RIVER = "the boat drifted toward the river bank"
SENTENCE_MONEY = "she paid cash into the bank"
POSITION_STRENGTH = 0.1
TABLE_NOISE = 0.03

# One head, d = 4 → d_k = d_v = 3. Rows: input features; columns: head features.
W_Q = np.array([[0.0, 0.0, 0.0],   # water
                [0.0, 0.0, 0.0],   # money
                [2.5, 2.5, 0.0],   # thing → asks for water and money evidence
                [0.0, 0.0, 1.0]])  # grammar → asks for grammar (function words look at each other)
W_K = np.array([[1.0, 0.0, 0.0],   # water advertised
                [0.0, 1.0, 0.0],   # money advertised
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 1.0]])  # grammar advertised
W_V = np.array([[1.0, 0.0, 0.0],
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [0.0, 0.0, 0.0]])
W_O = np.array([[1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, 0.5, 0.0]])

# Encoder–decoder toy (section 2).
SOURCE = ("dogs", "chase", "red", "balls")
TARGET = ("Hunde", "jagen", "rote", "Bälle")
RNN_SEED = 3
RNN_RECURRENCE = 0.35
DECODER_GAIN = 4.0

# Multi-head example (section 7), FACTS.md.
MH_TOKENS = ("river", "bank", "flooded")
MH_X = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]])


def embedding_table(seed: int) -> np.ndarray:
    """(V, 4) the designed features of every vocabulary word plus seeded noise."""
    rng = np.random.default_rng(seed)
    base = np.array([WORDS[w] for w in VOCAB])  # (V, 4)
    return base + rng.normal(0.0, TABLE_NOISE, base.shape)  # (V, 4)


def token_ids(sentence: str) -> list[int]:
    """Word-level tokenization: split on spaces, look each word up in VOCAB."""
    return [VOCAB.index(w) for w in sentence.split()]


@dataclass(frozen=True)
class Sentence:
    """One sentence through embedding, positions and the head."""

    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    lookup: np.ndarray  # (n, 4)  E[ids]
    positions: np.ndarray  # (n, 4)  POSITION_STRENGTH · PE
    causal: bool = False

    @property
    def x(self) -> np.ndarray:
        return self.lookup + self.positions  # (n, 4)

    @cached_property
    def q(self) -> np.ndarray:
        return self.x @ W_Q  # (n, 3)

    @cached_property
    def k(self) -> np.ndarray:
        return self.x @ W_K  # (n, 3)

    @cached_property
    def v(self) -> np.ndarray:
        return self.x @ W_V  # (n, 3)

    @cached_property
    def attention(self) -> Attention:
        return attend(self.q, self.k, self.v, causal=self.causal)

    @cached_property
    def update(self) -> np.ndarray:
        return self.attention.output @ W_O  # (n, 4)

    @cached_property
    def contextual(self) -> np.ndarray:
        return self.x + self.update  # (n, 4)  the residual path adds the update to the input

    def index(self, token: str) -> int:
        return self.tokens.index(token)


def sentence(text: str, seed: int, *, causal: bool = False) -> Sentence:
    ids = token_ids(text)
    table = embedding_table(seed)
    lookup = embed(ids, table)  # (n, 4)
    pos = POSITION_STRENGTH * sinusoidal_positions(len(ids), table.shape[1])  # (n, 4)
    return Sentence(tuple(text.split()), tuple(ids), lookup, pos, causal)


@dataclass(frozen=True)
class Seq2Seq:
    """The RNN encoder states and one decoder step's attention over them."""

    x: np.ndarray  # (4, 4)  source word rows
    h: np.ndarray  # (4, 4)  encoder states h₁…h₄
    query: np.ndarray  # (1, 4)  decoder state for TARGET[-1]
    attention: Attention  # weights (1, 4), output (1, 4) = c


def seq2seq(seed: int) -> Seq2Seq:
    table = embedding_table(seed)
    x = embed(token_ids(" ".join(SOURCE)), table)  # (4, 4)
    rng = np.random.default_rng(RNN_SEED)
    w_x = 2.0 * np.eye(4)  # (4, 4)
    w_h = RNN_RECURRENCE * rng.standard_normal((4, 4)) / 2.0  # (4, 4)
    h, prev = [], np.zeros(4)
    for t in range(len(SOURCE)):
        prev = np.tanh(x[t] @ w_x + prev @ w_h)  # (4,)  h_t = tanh(W_x x_t + W_h h_{t−1})
        h.append(prev)
    states = np.array(h)  # (4, 4)
    own = np.tanh(x @ w_x)  # (4, 4)  each word's state without recurrence
    query = (own[-1] - own.mean(axis=0))[None, :]  # (1, 4)  designed: what sets "balls" apart
    att = attend(query, states, states, scale=DECODER_GAIN)
    return Seq2Seq(x, states, query, att)


# Specialised heads (section 7): d_model 8 = 4 word features | 4 position features, two heads of 4.
SPEC_TOKENS = ("the", "river", "flooded", "the", "old", "bank")
SPEC_EXTRA_WORDS = {"old": (0.0, 0.0, 0.2, 0.5)}
SPEC_OMEGA = np.pi / 4
PREV_GAIN = 6.0
REF_GAIN = 10.0
SPEC_COLS = (*FEATURES, "cos ωp", "sin ωp", "cos 2ωp", "sin 2ωp")


def _turn(angle: float) -> np.ndarray:
    """(2, 2) for row vectors: [cos a·p, sin a·p] @ _turn(a) = [cos a·(p − 1), sin a·(p − 1)]."""
    return np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])


def spec_x() -> np.ndarray:
    """(6, 8) each token's four word features, then its four position features."""
    words = np.array([(WORDS | SPEC_EXTRA_WORDS)[t] for t in SPEC_TOKENS])  # (6, 4)
    p = np.arange(len(SPEC_TOKENS))
    w = SPEC_OMEGA
    pos = np.stack([np.cos(w * p), np.sin(w * p), np.cos(2 * w * p), np.sin(2 * w * p)], axis=1)  # (6, 4)
    return np.hstack([words, pos])  # (6, 8)


def spec_weights() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """W_Q, W_K, W_V (8, 8): columns 1–4 are head 1's, 5–8 head 2's; W_O (8, 8)."""
    w_q, w_k, w_v, w_o = (np.zeros((8, 8)) for _ in range(4))
    w_q[4:6, 0:2] = PREV_GAIN * _turn(SPEC_OMEGA)  # head 1: position p asks for position p − 1
    w_q[6:8, 2:4] = PREV_GAIN * _turn(2 * SPEC_OMEGA)
    w_k[4:8, 0:4] = np.eye(4)  # head 1: keys are the positions
    w_q[2, 4] = REF_GAIN  # head 2: a noun (thing) asks for water
    w_q[3, 7] = 2.0  # function words look at function words
    w_k[0, 4], w_k[3, 7] = 1.0, 1.0  # head 2: keys advertise water, and grammar
    w_v[0:4, 0:4] = np.eye(4)  # both heads deliver the word features
    w_v[0:4, 4:8] = np.eye(4)
    w_o[0:4, 0:4] = 0.5 * np.eye(4)  # the output averages the two heads in the word half
    w_o[4:8, 0:4] = 0.5 * np.eye(4)
    return w_q, w_k, w_v, w_o
