"""The widget base classes: ``Widget`` (id, type, box, kind, data) and ``WidgetData`` (a view's input)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from attention_talk.frames.primitives import Box, Kind, Strict


class WidgetData(Strict):
    """A widget's ``data``: the input of its JS view. Unknown keys are an error.

    Only what was passed is serialised: a field left at its default by the builder is omitted from
    the JSON (the view applies its own default), one passed explicitly, even as None, is kept.
    """

    @model_serializer(mode="wrap")
    def _only_what_was_passed(self, handler: SerializerFunctionWrapHandler):  # no return type: keeps the schema
        out = handler(self)
        for name, field in type(self).model_fields.items():
            if name not in self.model_fields_set and not field.is_required():
                out.pop(name, None)
        return out


class Widget(Strict):
    """Anything drawn that is not a matrix: a bar chart, a diagram, a slider, a card...

    ``type`` names the JS view that draws it; ``data`` is that view's input, computed by the builder.
    Widgets are keyed by ``id`` like tensors by name: the player keeps a widget's element across
    steps while its id stays. Builders make widgets with ``kit.widgets.widget(type, id, box, data,
    kind=...)``, which returns the typed kind and rejects a wrong key or type in ``data``.

    To add a widget kind:

    1. one Python model, in ``frames/widgets/diagrams.py``, ``charts.py`` or ``mechanisms.py``: a
       ``<Name>Data(WidgetData)`` with one described field per key the builders pass (and the view
       reads), a ``<Name>Widget(Widget)`` with ``type: Literal["<name>"]`` and ``data: <Name>Data``;
       ``AnyWidget`` in ``frames/widgets/__init__.py`` collects it from those modules;
    2. one JS view module in ``static/js/views/`` that calls ``registerWidget("<name>", render)``
       with the name written out, in a file named for the kind (``views/<name>.js``), and its line
       in ``views/widget-views.js``'s table: ``"<name>": () => import("./<name>.js")``;
    3. one test entry, if no shipped deck uses the kind yet: a sample ``data`` in ``SAMPLES`` of
       ``tests/test_widgets.py`` (which checks that Python and JS name the same kinds, that the
       OpenAPI schema documents each kind's fields and that every kind validates).

    This base class is untyped (``type: str``, ``data: dict``): a ``Widget(...)`` built directly
    (the legacy builders still do) becomes its typed kind wherever ``AnyWidget`` validates it, as
    ``FrameBody`` does, and fails there if its data does not fit.
    """

    id: str = Field(description="Stable id within a slide; the player animates widgets by id.")
    type: str = Field(description="The widget kind: the JS view registered under this name draws it.")
    box: Box
    kind: Kind = Field(default="neutral", description="The widget's colour role.")
    data: dict[str, Any] = Field(default_factory=dict, description="The view's input.")

    @model_validator(mode="before")
    @classmethod
    def _from_untyped(cls, value: Any) -> Any:
        """An untyped ``Widget`` (built directly) validates into a typed kind through its fields."""
        return dict(value) if type(value) is Widget and cls is not Widget else value
