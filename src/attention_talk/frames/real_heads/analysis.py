"""The runs chapter 3 draws from, made once per (model, sentence, seed): one model run per text.

- the deck's sentence, every layer and head (weights, q, k, scores): the real map, RoPE, sinks,
  and the previous-token and first-token measures;
- a random sequence of whole-word tokens repeated twice (drawn with the deck's seed): induction.

Each measure is ``engine.heads`` over the (layers, heads, n, n) weights; the heads shown are the
measures' top scorers (``engine.heads.best_head``), never indexes chosen by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from attention_talk.engine import heads as measures

INDUCTION_PERIOD = 10  # tokens in each copy of the repeated sequence
MEASURE_NAMES = {"previous": "previous token", "first": "first token (sink)", "induction": "induction"}


@dataclass(frozen=True)
class Job:
    """One measure over every head: its (L, h) grid and its top scorer."""

    measure: str
    text: str
    tokens: list[str]
    grid: np.ndarray  # (L, h)
    layer: int
    head: int

    @property
    def best(self) -> float:
        return float(self.grid[self.layer, self.head])


@dataclass(frozen=True)
class Analysis:
    model_name: str
    sentence: object  # attention_talk.model.Run of the deck's sentence (weights, q, k, scores)
    repeated: object  # the Run of the repeated random sequence (weights)
    jobs: dict[str, Job]


def all_weights(run) -> np.ndarray:
    """Every head's weights of a run as one (L, h, n, n) array."""
    return np.stack([np.stack([run.head(layer, h).weights for h in run.heads]) for layer in run.layers])


def repeated_text(model, seed: int, period: int = INDUCTION_PERIOD) -> str:
    """A text whose tokens are ``period`` random whole words, then the same words again.

    Words are drawn (``numpy.random.default_rng(seed)``) among single tokens that are a space and
    four to six lower-case letters, and kept only when the text tokenizes back to exactly them."""
    rng = np.random.default_rng(seed)
    tok = model.tokenizer
    for _ in range(100):
        ids: list[int] = []
        while len(ids) < period:
            i = int(rng.integers(0, model.config.vocab))
            piece = tok.pieces([i])[0]
            word = piece[1:]
            if piece.startswith("Ġ") and word.isascii() and word.isalpha() and word.islower() and 4 <= len(word) <= 6 \
                    and i not in ids:
                ids.append(i)
        words = "".join(tok.display(i) for i in ids)
        text = words + words
        if model.tokenize(text) == ids + ids:
            return text
    raise ValueError("no repeated sequence of whole-word tokens found")  # pragma: no cover


def _job(measure: str, run, period: int | None = None) -> Job:
    grid = measures.score(all_weights(run), measure, period)  # (L, h)
    layer, head = measures.best_head(grid)
    return Job(measure, run.text, list(run.tokens), grid, layer, head)


@lru_cache(maxsize=4)
def analyse(model, sentence: str, seed: int) -> Analysis:
    """Both runs and the three measures (cached per model, sentence and seed)."""
    run = model.run(sentence, want=("weights", "q", "k", "v", "scores"))
    repeated = model.run(repeated_text(model, seed), want=("weights", "q", "k", "scores"))
    jobs = {"previous": _job("previous", run), "first": _job("first", run),
            "induction": _job("induction", repeated, len(repeated.tokens) // 2)}
    return Analysis(model.name, run, repeated, jobs)


def analysis(ctx) -> Analysis:
    """The analysis of the deck's sentence with the build context's model."""
    if ctx.model is None:
        raise ValueError("this chapter needs a real model: build the deck with attention_talk.model.load()")
    return analyse(ctx.model, ctx.deck.story.sentence, ctx.deck.story.seed)
