"""Widgets, typed: one pydantic model per widget kind, the contract between builders and JS views.

A widget is anything drawn that is not a matrix. Each kind is a ``Widget`` subclass with
``type: Literal["<name>"]`` and ``data: <Name>Data`` (in ``diagrams``, ``charts`` or
``mechanisms``); ``AnyWidget`` is their union, told apart by ``type``. ``FrameBody.widgets`` is a
``list[AnyWidget]``, so the frames' OpenAPI schema documents every kind's data, and builders (through
``kit.widgets.widget``) cannot send a view a key it does not know. How to add a kind: see ``Widget``.

Data models hold exactly the keys the builders send. A field with a default may be left out by a
builder; it is then left out of the JSON too (see ``WidgetData``), so the JSON is what was passed.

This package imports only ``frames.primitives`` (Box, Kind), so ``frames.contract`` can import it.
"""

from __future__ import annotations

from typing import Annotated, Union, get_args

from pydantic import Field

from attention_talk.frames.widgets import charts, diagrams, mechanisms, mechanisms_heads, mechanisms_model
from attention_talk.frames.widgets.base import Widget, WidgetData

__all__ = ["WIDGET_KINDS", "WIDGET_TYPES", "AnyWidget", "Widget", "WidgetData"]


def _kinds() -> list[type[Widget]]:
    """Every widget kind defined in the kind modules: a ``Widget`` subclass with its own ``type``
    literal. Adding a kind to ``charts``, ``diagrams`` or ``mechanisms`` is all the Python a new kind
    needs."""
    found = []
    for module in (charts, diagrams, mechanisms, mechanisms_heads, mechanisms_model):
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, Widget) and obj is not Widget
                    and obj.__module__ == module.__name__ and get_args(obj.model_fields["type"].annotation)):
                found.append(obj)
    return sorted(found, key=lambda cls: get_args(cls.model_fields["type"].annotation)[0])


AnyWidget = Annotated[Union[tuple(_kinds())], Field(discriminator="type")]  # noqa: UP007 - built at run time
"""Any widget kind, told apart by ``type`` (a discriminated union)."""

WIDGET_KINDS: dict[str, type[Widget]] = {
    get_args(cls.model_fields["type"].annotation)[0]: cls for cls in get_args(get_args(AnyWidget)[0])}
"""Each widget type name → its model."""

WIDGET_TYPES: tuple[str, ...] = tuple(sorted(WIDGET_KINDS))
"""The widget type names, sorted: each must have a JS view (``registerWidget("<name>", …)``)."""
