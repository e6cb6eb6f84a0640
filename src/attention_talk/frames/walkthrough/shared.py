"""Chapter 2's own helpers: two layout shorthands, the two "bank" sentences (built once per deck),
card, bar and equation widgets, and counters drawn from the cost model."""

from __future__ import annotations

import numpy as np

from attention_talk.engine import Count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Box, Counter, Widget
from attention_talk.frames.kit.layout import LEFT, RIGHT, box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.walkthrough.inputs import FEATURES, SENTENCE_MONEY, SENTENCE_RIVER, Sentence, sentence

FEATS = list(FEATURES)


def band(y: float, h: float) -> Box:
    """A box across the whole content width, from LEFT to RIGHT."""
    return box(LEFT, y, RIGHT - LEFT, h)


def to_right(x: float, y: float, h: float) -> Box:
    """A box from ``x`` to the right edge of the content (RIGHT)."""
    return box(x, y, RIGHT - x, h)


def cards(wid: str, b: Box, items: list[dict], *, columns: int = 3, arrows: bool = False,
          active: int | None = None, kind: str = "neutral", top: bool = False) -> Widget:
    """A row (or grid) of text cards: {title, body, tag?, kind?}, centred in their box; ``top`` stacks
    them from the box's top instead, so cards that arrive one per step never move the earlier ones."""
    data = {"cards": items, "columns": columns, "arrows": arrows, "active": active}
    return widget("cards", wid, b, data | ({"align": "top"} if top else {}), kind=kind)


def bars(wid: str, b: Box, title: str, labels: list[str], values: np.ndarray, *, kind: str = "weights",
         digits: int = 3, highlight: int | None = None, show_sum: bool = True,
         value_labels: list[str] | None = None, scale_max: float | None = 1.0) -> Widget:
    """Labelled horizontal bars, with their sum unless ``show_sum`` is off. A full track is
    ``scale_max`` (1: probabilities); None scales to the largest value (counts, bytes)."""
    values = np.asarray(values, dtype=np.float64)
    data = {"title": title, "labels": labels, "values": [float(v) for v in values], "digits": digits,
            "highlight": highlight, "sum": float(values.sum()) if show_sum else None, "value_labels": value_labels}
    return widget("weight-bars", wid, b, data | ({"scale_max": scale_max} if scale_max else {}), kind=kind)


def equation_widget(wid: str, b: Box, name: str) -> Widget:
    """A typeset equation from the player's equation table."""
    return widget("equation", wid, b, {"name": name})


def sentences(ctx: BuildContext) -> tuple[Sentence, Sentence]:
    """The river and the money sentence, with the deck's seed (computed once per build)."""
    if "walk" not in ctx._cache:
        seed = ctx.deck.story.seed
        ctx._cache["walk"] = (sentence(SENTENCE_RIVER, seed), sentence(SENTENCE_MONEY, seed))
    return ctx._cache["walk"]


def causal_river(ctx: BuildContext) -> Sentence:
    """The river sentence through the causal head: the pipeline's, the picker's and FlashAttention's."""
    if "walk_causal" not in ctx._cache:
        ctx._cache["walk_causal"] = sentence(SENTENCE_RIVER, ctx.deck.story.seed, causal=True)
    return ctx._cache["walk_causal"]


def counter(cid: str, count: Count, label: str | None = None) -> Counter:
    """A cost-model count (value, formula, source) as a counter on the stage."""
    return Counter(id=cid, label=label or count.label, value=float(count.value), formula=count.formula,
                   source=count.source, unit=count.unit)
