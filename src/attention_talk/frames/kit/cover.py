"""A title slide's picture, the same for every chapter: the deck's sentence as token chips, arcs from
its focus token as wide as that token's attention weights, and beside it the whole map of those
weights, whose focus row is the arcs. Each chapter hands in weights its engine computed (chapter 1:
the story's causal head; chapter 2: the designed causal head; chapter 3: the real model's measured
previous-token head)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.layout import COVER
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.primitives import Box

__all__ = ["cover"]


def cover(tokens: Sequence[str], focus: int, weights: np.ndarray, *, wid: str = "cover",
          area: Box = COVER, masked: np.ndarray | None = None) -> FrameBody:
    """The cover picture of ``tokens`` with ``weights`` (n × n, rows summing to 1) from ``focus``.

    ``masked`` (n × n booleans) marks the cells a mask blocks; unset, a causal mask's cells (the
    zeros above the diagonal) are the masked ones. Masked cells are sent as null.
    """
    w = np.asarray(weights, dtype=np.float64)
    n = len(tokens)
    if w.shape != (n, n):
        raise ValueError(f"cover: weights are {w.shape}, expected ({n}, {n}) for {n} tokens")
    if not 0 <= focus < n:
        raise ValueError(f"cover: focus {focus} is outside the {n} tokens")
    blocked = np.triu(np.ones((n, n), dtype=bool), k=1) if masked is None else np.asarray(masked, dtype=bool)
    # the map is drawn as tints only (no number on it): 4 decimals are finer than any tint, and the title's
    # first paint carries the whole map (benchmarks/page.py's byte target)
    grid = [[None if blocked[i, j] else round(float(w[i, j]), 4) for j in range(n)] for i in range(n)]
    links = [0.0 if blocked[focus, j] else float(w[focus, j]) for j in range(n)]
    return FrameBody(widgets=[widget("tokens", wid, area, {
        "tokens": list(tokens), "focus": focus, "links": links, "caption": "", "map": grid}, kind="weights")])
