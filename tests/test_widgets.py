"""The widget contract: one typed Python model per kind (frames.widgets), one JS view per kind.

- Python and JS name the same kinds (``registerWidget("<name>", …)`` in ``static/js``);
- the frames' OpenAPI schema documents each kind's data fields;
- a wrong key or type in a widget's data is refused, naming the widget and the field;
- every widget of every frame of the shipped decks validates, and dumps back to the same JSON.

A new kind that no shipped deck uses yet needs a sample ``data`` in ``SAMPLES``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter, ValidationError

from attention_talk.frames import build_deck_frames, load_deck, needs_model
from attention_talk.frames.contract import Box, FrameBody, Widget
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.widgets import WIDGET_KINDS, WIDGET_TYPES, AnyWidget
from attention_talk.paths import data_dir
from attention_talk.web import create_app

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "static" / "js"
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)  # a call in a comment registers nothing
REGISTER = re.compile(r"""\bregisterWidget\(\s*["']([^"']+)["']""")
BOX = Box(x=100, y=120, w=400, h=300)
ANY_WIDGET: TypeAdapter[Widget] = TypeAdapter(AnyWidget)

# data for kinds that no shipped deck draws yet: {"<type>": {...}}
# The link kind is only in chapter 3, which needs the real model: a sample keeps it checked without it.
SAMPLES: dict[str, dict[str, Any]] = {
    "link": {"title": "open the lab", "text": "the old dog", "href": "/lab?text=the+old+dog&source=model",
             "detail": "layer 3, head 1"},
    # the many-heads kinds (frames/widgets/mechanisms_heads.py) are drawn only by the demo decks of
    # tests/browser/decks until the talk's decks use them
    "head-maps": {"title": "two designed heads", "tokens": ["the", "dog"], "named": True, "columns": 2,
                  "heads": [{"title": "head 1", "weights": [[1.0, 0.0], [0.9, 0.1]], "job": "previous token",
                             "score": 0.9, "targets": [[1, 0]]},
                            {"title": "head 2", "weights": [[1.0, 0.0], [0.2, 0.8]]}]},
    "concat": {"blocks": [{"title": "head 1", "shape": [2, 4]}, {"title": "head 2", "job": "itself", "shape": [2, 4]}],
               "concat": [2, 8], "w_o": [8, 16], "output": [2, 16], "stage": "product", "token": "dog",
               "columns": [1, 2, 3, 16], "values": [0.1, -0.2, 0.3, 0.4]},
    "heatmap": {"title": "previous token", "rows": ["0", "1"], "cols": ["0", "1", "2"], "row_axis": "head",
                "col_axis": "layer", "values": [[0.1, 0.5, 0.2], [0.3, 0.9, 0.0]], "winner": [1, 1], "stage": "zoom",
                "zoom": {"title": "layer 1, head 1", "rows": ["the", "dog"], "cols": ["the", "dog"],
                         "weights": [[1.0, 0.0], [0.9, 0.1]], "targets": [[1, 0]]}},
    # the head picker: chapter 2's second multi-head example drew it until issue 31 cut that example
    "head-picker": {"tokens": ["the", "dog"], "selected": 0, "focus": 1, "show_summary": True,
                    "heads": [{"title": "head 1", "weights": [[1.0, 0.0], [0.9, 0.1]], "summary": "previous word"},
                              {"title": "head 2", "weights": [[1.0, 0.0], [0.2, 0.8]], "summary": "itself"}]},
    # the plain histogram: chapter 2's √d_k steps draw the scaling kind since issue 30; no deck uses it today
    "histogram": {"series": [{"label": "q·k", "kind": "scores", "edges": [0.0, 1.0, 2.0], "counts": [1, 3],
                              "stat": "variance 0.2"}], "caption": "one shared axis", "rows": 2, "ticks": [0.0, 2.0]},
    # issue 30's mechanism kinds, until the talk decks draw them (their demo: tests/browser/decks/mechanisms-demo.yaml)
    "softmax": {"title": "the row of “b”", "labels": ["a", "b", "c"], "scores": [1.0, 2.0, None], "row_max": 2.0,
                "shifted": [-1.0, 0.0, None], "exps": [0.36787944117144233, 1.0, 0.0], "total": 1.3678794411714423,
                "weights": [0.2689414213699951, 0.7310585786300049, 0.0], "stage": "exp"},
    "mask": {"rows": ["a", "b"], "cols": ["a", "b"], "scores": [[1.0, 2.0], [3.0, 4.0]],
             "mask": [[0.0, None], [0.0, 0.0]], "result": [[1.0, None], [3.0, 4.0]], "stage": "added",
             "scores_label": "S / √2", "mask_label": "M: causal",
             "result_label": "S / √2 + M"},
    "scaling": {"edges": [0.0, 1.0, 2.0], "raw_counts": [1, 3], "scaled_counts": [4, 0], "raw_label": "Q·Kᵀ",
                "scaled_label": "Q·Kᵀ / √4", "ticks": [0.0, 2.0], "divisor": 2.0, "labels": ["a", "b"],
                "raw_weights": [0.1, 0.9], "scaled_weights": [0.3, 0.7], "masked": [False, False], "row_title": "t",
                "stage": "scaled"},
}

# a few data fields per kind that the OpenAPI schema must document (each view reads them)
DOCUMENTED = {
    "cards": {"cards", "columns", "arrows", "active"},
    "dense": {"inputs", "outputs", "n_in", "n_out", "focus_output", "all_links", "token"},
    "equation": {"name"},
    "flash": {"tokens", "n", "tiles", "current", "final", "exact"},
    "flow": {"X", "W_Q", "map", "A", "Z", "O", "head_box"},
    "growth": {"sizes", "index", "interactive"},
    "concat": {"blocks", "concat", "w_o", "output", "stage", "token", "columns", "values"},
    "head-maps": {"title", "tokens", "heads", "columns", "named"},
    "heads": {"heads", "d_model", "d_v", "n", "stage", "per_head_weights", "all_weights"},
    "heatmap": {"title", "rows", "cols", "row_axis", "col_axis", "values", "winner", "stage", "zoom"},
    "histogram": {"series", "caption"},
    "link": {"title", "text", "href", "detail"},
    "mask": {"rows", "cols", "scores", "mask", "result", "stage"},
    "pipeline": {"stages", "active"},
    "rnn": {"source", "states", "target", "mode", "weights", "focus", "values"},
    "scaling": {"edges", "raw_counts", "scaled_counts", "divisor", "raw_weights", "scaled_weights", "masked", "stage",
                "peaks"},
    "slider": {"options", "selected", "heads", "title", "square_label"},
    "softmax": {"labels", "scores", "row_max", "shifted", "exps", "total", "weights", "stage", "fit"},
    "stack": {"tokens", "layers", "d_model", "zoom"},
    "token-picker": {"tokens", "rows", "sums", "selected", "title"},
    "tokens": {"tokens", "focus", "links"},
    "weight-bars": {"title", "labels", "values", "digits", "highlight", "sum", "value_labels"},
}
NESTED = {"Card": {"title", "body", "tag", "kind"}, "DenseNode": {"index", "value"},
          "HeadMap": {"title", "weights", "job", "score", "targets"}, "ConcatBlock": {"title", "job", "shape"},
          "HeatmapZoom": {"title", "rows", "cols", "weights", "targets"},
          "FlashTile": {"rows", "cols", "s", "m_tilde", "l_tilde", "m", "l", "o"},
          "GrowthSize": {"n", "cells", "bytes", "qk_flops", "qk_formula", "cells_formula"},
          "HistogramSeries": {"label", "kind", "edges", "counts", "stat"},
          "PipelineStage": {"title", "formula", "shape"},
          "SliderOption": {"n", "cells", "bytes", "all_heads_bytes", "side", "cells_formula"}}


def js_views() -> dict[str, list[str]]:
    """Each widget type registered in static/js → the modules that register it."""
    found: dict[str, list[str]] = {}
    for path in sorted(JS.rglob("*.js")):
        for name in REGISTER.findall(COMMENTS.sub("", path.read_text(encoding="utf-8"))):
            found.setdefault(name, []).append(str(path.relative_to(ROOT)))
    return found


def model_installed() -> bool:
    from attention_talk.model import default_path

    path = default_path()
    return path is not None and path.is_file()


@pytest.fixture(scope="module")
def shipped() -> list[tuple[str, Widget]]:
    """Every widget of every frame of the shipped decks, with where it is."""
    out = []
    for path in sorted(data_dir("slides").glob("*.yaml")):
        deck = load_deck(path)
        if needs_model(deck) and not model_installed():
            continue  # chapter 3 without the model (CI installs it; test_chapter3 fails there without)
        for slide, frames in build_deck_frames(deck).items():
            out += [(f"{deck.id} › {slide} › step {f.step} › {w.id}", w) for f in frames for w in f.widgets]
    assert out
    return out


@pytest.fixture(scope="module")
def sample_data(shipped) -> dict[str, dict[str, Any]]:
    """One real ``data`` per kind (the first shipped widget of that kind), else its SAMPLES entry."""
    data = dict(SAMPLES)
    for _, w in shipped:
        data.setdefault(w.type, w.data.model_dump(mode="json"))
    return data


# ---- Python and JS agree -----------------------------------------------------------------------


def test_every_python_kind_has_a_js_view_and_every_view_a_python_kind() -> None:
    views = js_views()
    assert set(WIDGET_TYPES) - set(views) == set(), "widget kinds without a JS view (registerWidget)"
    assert set(views) - set(WIDGET_TYPES) == set(), "JS views without a Python widget model in AnyWidget"
    twice = {name: files for name, files in views.items() if len(files) > 1}
    assert not twice, f"registered more than once: {twice}"


def test_the_registry_regex_reads_the_calls_it_should() -> None:
    src = """registerWidget("weight-bars", render);\nregisterWidget( 'cards', (root) => {});
    export function registerWidget(type, render) { VIEWS.set(type, render); }"""
    assert REGISTER.findall(src) == ["weight-bars", "cards"]
    assert REGISTER.findall(COMMENTS.sub("", '// registerWidget("ghost", r)\n/* registerWidget("x", r) */')) == []


# ---- the OpenAPI schema documents the data -----------------------------------------------------


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    r = TestClient(create_app()).get("/openapi.json")
    assert r.status_code == 200
    return r.json()["components"]["schemas"]


def ref(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    return components[schema["$ref"].rsplit("/", 1)[-1]]


def test_the_frames_schema_documents_every_widget_kind_and_its_data(components) -> None:
    frames = components["SlideFrames"]["properties"]["frames"]["items"]
    items = ref(frames, components)["properties"]["widgets"]["items"]
    mapping = items["discriminator"]["mapping"]
    assert items["discriminator"]["propertyName"] == "type"
    assert sorted(mapping) == list(WIDGET_TYPES)
    for name, target in mapping.items():
        kind = components[target.rsplit("/", 1)[-1]]
        assert kind["properties"]["type"]["const"] == name
        assert kind.get("description"), f"{name}: the widget model needs a docstring"
        data = ref(kind["properties"]["data"], components)
        assert data.get("additionalProperties") is False, name
        assert DOCUMENTED.get(name, set()) <= set(data["properties"]), name
        undescribed = [f for f, s in data["properties"].items() if not s.get("description")]
        assert not undescribed, f"{name}: data fields without a description: {undescribed}"


def test_the_schema_documents_the_nested_items(components) -> None:
    for model, fields in NESTED.items():
        props = components[model]["properties"]
        assert fields <= set(props), model
        assert all(s.get("description") for s in props.values()), model


def test_optional_keys_are_not_required(components) -> None:
    assert "value_labels" not in components["WeightBarsData"]["required"]
    assert {"sum", "highlight"} <= set(components["WeightBarsData"]["required"])
    assert set(components["Card"]["required"]) == {"title", "body"}


# ---- wrong data is refused, naming the widget and the field ---------------------------------------


@pytest.mark.parametrize("kind", WIDGET_TYPES)
def test_a_wrong_data_key_names_the_widget_and_the_key(kind, sample_data) -> None:
    data = sample_data[kind] | {"colour": "red"}
    with pytest.raises(ValidationError) as err:
        widget(kind, "w1", BOX, data)
    text = str(err.value)
    assert f"widget {kind!r} (id 'w1')" in text and "data.colour" in text and "Extra inputs" in text


@pytest.mark.parametrize("kind", WIDGET_TYPES)
def test_a_missing_data_key_names_it(kind, sample_data) -> None:
    data = dict(sample_data[kind])
    first = next(k for k in data if WIDGET_KINDS[kind].model_fields["data"].annotation.model_fields[k].is_required())
    del data[first]
    with pytest.raises(ValidationError, match=rf"(?s)widget {kind!r}.*data\.{first}\n  Field required"):
        widget(kind, "w1", BOX, data)


def test_a_wrong_type_names_the_field_even_nested() -> None:
    tokens = {"tokens": ["the", "dog"], "focus": "dog", "links": None, "caption": ""}
    with pytest.raises(ValidationError, match=r"(?s)widget 'tokens'.*data\.focus\n  Input should be a valid integer"):
        widget("tokens", "sentence", BOX, tokens, kind="input")
    cards = {"cards": [{"title": "Q", "body": "asks", "kind": "purple"}], "columns": 1, "arrows": False,
             "active": None}
    with pytest.raises(ValidationError, match=r"(?s)widget 'cards'.*data\.cards\.0\.kind"):
        widget("cards", "c", BOX, cards)


def test_an_unknown_type_lists_the_known_ones() -> None:
    with pytest.raises(ValidationError, match=r"'tokenz' .* expected tags: 'cards', .*'dense'"):
        widget("tokenz", "w1", BOX, {})


# ---- the shipped decks ---------------------------------------------------------------------------


def test_every_widget_of_the_shipped_decks_validates_and_dumps_back_the_same(shipped) -> None:
    for where, w in shipped:
        assert type(w) is WIDGET_KINDS[w.type], where
        dumped = w.model_dump(mode="json")
        again = ANY_WIDGET.validate_python(dumped)
        assert again.model_dump(mode="json") == dumped, where
        assert ANY_WIDGET.validate_json(w.model_dump_json()).model_dump(mode="json") == dumped, where


def test_every_kind_is_drawn_by_a_shipped_deck_or_has_a_sample(shipped) -> None:
    drawn = {w.type for _, w in shipped}
    assert set(WIDGET_TYPES) - drawn - set(SAMPLES) == set(), "add a sample to SAMPLES"
    for kind, data in SAMPLES.items():
        assert type(widget(kind, "sample", BOX, data)) is WIDGET_KINDS[kind]


# ---- what the JSON carries -------------------------------------------------------------------------


def bars(**extra: Any) -> dict[str, Any]:
    return {"title": "weights", "labels": ["a", "b"], "values": [0.25, 0.75], "digits": 2, "highlight": None,
            "sum": 1.0, **extra}


def test_a_key_the_builder_left_out_stays_out_and_an_explicit_null_stays_null() -> None:
    assert "value_labels" not in widget("weight-bars", "b", BOX, bars()).model_dump(mode="json")["data"]
    explicit = widget("weight-bars", "b", BOX, bars(value_labels=None)).model_dump(mode="json")["data"]
    assert "value_labels" in explicit and explicit["value_labels"] is None
    card = widget("cards", "c", BOX, {"cards": [{"title": "Q", "body": "asks"}], "columns": 1, "arrows": False,
                                      "active": None})
    assert card.model_dump(mode="json")["data"]["cards"] == [{"title": "Q", "body": "asks"}]
    assert '"highlight":null' in widget("weight-bars", "b", BOX, bars()).model_dump_json()


def test_numbers_keep_their_json_type() -> None:
    w = widget("weight-bars", "b", BOX, bars(values=[65_536.0, 1_152.0], digits=0))
    assert '"values":[65536.0,1152.0]' in w.model_dump_json() and '"digits":0' in w.model_dump_json()


def test_an_untyped_widget_becomes_its_kind_in_a_frame_body() -> None:
    """The legacy builders build ``Widget(...)`` directly; FrameBody turns it into the typed kind."""
    body = FrameBody(widgets=[Widget(id="b", type="weight-bars", box=BOX, kind="weights", data=bars())])
    assert type(body.widgets[0]) is WIDGET_KINDS["weight-bars"]
    assert body.widgets[0].model_dump() == widget("weight-bars", "b", BOX, bars(), kind="weights").model_dump()
    with pytest.raises(ValidationError, match=r"widgets\.0\.weight-bars\.data\.colour"):
        FrameBody(widgets=[Widget(id="b", type="weight-bars", box=BOX, data=bars(colour="red"))])
