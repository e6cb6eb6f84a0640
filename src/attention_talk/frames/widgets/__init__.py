"""Widgets, typed: one pydantic model per widget kind, the contract between builders and JS views.

A widget is anything drawn that is not a matrix. Each kind is a ``Widget`` subclass with
``type: Literal["<name>"]`` and ``data: <Name>Data`` (in ``diagrams`` or ``charts``); ``AnyWidget``
is their union, told apart by ``type``. ``FrameBody.widgets`` is a ``list[AnyWidget]``, so the
frames' OpenAPI schema documents every kind's data, and builders (through ``kit.widgets.widget``)
cannot send a view a key it does not know. How to add a kind: see ``Widget``.

Data models hold exactly the keys the builders send. A field with a default may be left out by a
builder; it is then left out of the JSON too (see ``WidgetData``), so the JSON is what was passed.

This package imports only ``frames.primitives`` (Box, Kind), so ``frames.model`` can import it.
"""

from __future__ import annotations

from typing import Annotated, get_args

from pydantic import Field

from attention_talk.frames.widgets.base import Widget, WidgetData
from attention_talk.frames.widgets.charts import (
    CardsWidget,
    EquationWidget,
    GrowthWidget,
    HeadPickerWidget,
    HistogramWidget,
    SliderWidget,
    TokenPickerWidget,
    TokensWidget,
    WeightBarsWidget,
)
from attention_talk.frames.widgets.diagrams import (
    DenseWidget,
    FlashWidget,
    FlowWidget,
    HeadsWidget,
    PipelineWidget,
    RnnWidget,
    StackWidget,
)

__all__ = ["WIDGET_KINDS", "WIDGET_TYPES", "AnyWidget", "Widget", "WidgetData"]

AnyWidget = Annotated[
    CardsWidget | DenseWidget | EquationWidget | FlashWidget | FlowWidget | GrowthWidget | HeadPickerWidget
    | HeadsWidget
    | HistogramWidget | PipelineWidget | RnnWidget | SliderWidget | StackWidget | TokenPickerWidget
    | TokensWidget | WeightBarsWidget,
    Field(discriminator="type"),
]
"""Any widget kind, told apart by ``type`` (a discriminated union)."""

WIDGET_KINDS: dict[str, type[Widget]] = {
    get_args(cls.model_fields["type"].annotation)[0]: cls for cls in get_args(get_args(AnyWidget)[0])}
"""Each widget type name → its model."""

WIDGET_TYPES: tuple[str, ...] = tuple(sorted(WIDGET_KINDS))
"""The widget type names, sorted: each must have a JS view (``registerWidget("<name>", …)``)."""
