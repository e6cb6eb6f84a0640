"""Widgets: anything drawn that is not a matrix (bars, cards, diagrams, sliders …).

Builders make widgets only through ``widget(type, id, box, data, kind=...)``; a widget kind's
``data`` is the input of the JS view registered under the same ``type`` in ``static/js/views``.
"""

from __future__ import annotations

from typing import Any

from attention_talk.frames.model import Box, Widget


def widget(type: str, id: str, box: Box, data: dict[str, Any], *, kind: str = "neutral") -> Widget:
    """A widget of kind ``type`` with its view's input ``data``."""
    return Widget(id=id, type=type, box=box, kind=kind, data=data)
