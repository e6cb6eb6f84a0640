"""Widgets: anything drawn that is not a matrix (bars, cards, diagrams, sliders …).

Builders make widgets only through ``widget(type, id, box, data, kind=...)``. It returns the typed
kind (``attention_talk.frames.widgets``: one model per kind, whose ``data`` is the input of the JS
view registered under the same ``type`` in ``static/js/views``) and raises a ``ValidationError``
naming the widget and the field when ``data`` has a key or a type that kind does not take.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from attention_talk.frames.primitives import Box, Kind
from attention_talk.frames.widgets import WIDGET_KINDS, WIDGET_TYPES, AnyWidget, Widget, WidgetData

__all__ = ["WIDGET_KINDS", "WIDGET_TYPES", "widget"]

_ANY_WIDGET: TypeAdapter[Widget] = TypeAdapter(AnyWidget)


def widget(type: str, id: str, box: Box, data: Mapping[str, Any] | WidgetData, *,
           kind: Kind = "neutral") -> Widget:
    """A widget of kind ``type`` with its view's input ``data``, validated against that kind's model.

    Raises ValidationError titled with the widget's type and id, one line per wrong field
    (``data.focus``, ``data.cards.0.title`` …); an unknown ``type`` lists the known ones.
    """
    raw = {"id": id, "type": type, "box": box, "kind": kind, "data": data}
    try:
        return _ANY_WIDGET.validate_python(raw)
    except ValidationError as exc:
        raise _named(exc, type, id) from None


def _named(exc: ValidationError, type: str, id: str) -> ValidationError:
    """The same errors, titled ``widget 'tokens' (id 'sentence')``, each located from the widget."""
    errors = []
    for e in exc.errors(include_url=False):
        loc = e["loc"][1:] if e["loc"][:1] == (type,) else e["loc"]
        errors.append({"type": e["type"], "loc": loc, "input": e["input"], **({"ctx": e["ctx"]} if "ctx" in e else {})})
    return ValidationError.from_exception_data(f"widget {type!r} (id {id!r})", errors)
