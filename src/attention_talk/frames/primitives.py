"""The small types every part of a frame shares: the strict base model, ``Box`` and ``Kind``.

They sit below both ``frames.contract`` (the Frame) and ``frames.widgets`` (the widget kinds), so that
``model`` can import the widget union while widgets use ``Box`` without an import loop.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Kind = Literal["input", "query", "key", "value", "scores", "mask", "weights", "output", "weight",
               "neutral"]
"""The role an item plays, which sets its colour (``kind-<name>`` in the CSS)."""


class Strict(BaseModel):
    """A frame model: unknown keys are an error, never silently dropped. Its validator and
    serialiser are built on first use, not at import (``defer_build``): the web app imports the
    frame models at start-up for its schemas, and builds frames only after it answers."""

    model_config = ConfigDict(extra="forbid", defer_build=True)


class Box(Strict):
    """A rectangle in stage units (the stage is 1600 × 900)."""

    x: float
    y: float
    w: float
    h: float
