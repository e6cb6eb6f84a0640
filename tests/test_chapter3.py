"""Chapter 3 ("What real heads do", slides/real-heads.yaml) on the real model: the deck, the order of
its ideas, every tensor computed from the model against POST /api/model/attention, and the heads
shown against an independent loop over every head's weights."""

from __future__ import annotations

import math
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
import pytest

from attention_talk.frames import load_deck, needs_model
from attention_talk.paths import data_dir

DECK = Path(data_dir("slides")) / "real-heads.yaml"
# The outline's ideas, in order: one slide each (plus the title).
IDEAS = ["title", "real-thing", "rope", "gqa", "real-map", "jobs", "sinks", "same-different", "sources"]


@pytest.fixture(scope="module")
def api_frames(client, real_model) -> dict[str, list[dict]]:
    """Every frame of the deck, as the API serves them (the first request builds the deck)."""
    manifest = client.get("/api/decks/real-heads")
    assert manifest.status_code == 200, manifest.text
    return {s["id"]: client.get(f"/api/decks/real-heads/slides/{s['id']}/frames").json()["frames"]
            for s in manifest.json()["slides"]}


def sourced_tensors(frames: dict[str, list[dict]]) -> list[dict]:
    """Tensors showing a head's weights (``source``)."""
    return [t for fs in frames.values() for f in fs for t in f["tensors"] if t.get("source")]


def derived_tensors(frames: dict[str, list[dict]]) -> list[dict]:
    """Tensors computed from a run that are not its weights (``derived_from``)."""
    return [t for fs in frames.values() for f in fs for t in f["tensors"] if t.get("derived_from")]


@pytest.fixture(scope="module")
def api_weights(client, api_frames) -> dict[str, tuple[list[str], np.ndarray]]:
    """text → (tokens, every head's weights (L, h, n, n)) from POST /api/model/attention."""
    out = {}
    texts = {t["source"]["text"] for t in sourced_tensors(api_frames)}
    for text in texts | {t["derived_from"]["text"] for t in derived_tensors(api_frames)}:
        r = client.post("/api/model/attention", json={"text": text, "digits": 8})
        assert r.status_code == 200, r.text
        body = r.json()
        w = np.array([[h["weights"] for h in layer["heads"]] for layer in body["layers"]])
        out[text] = (body["tokens"], w)
    return out


def test_sources_name_the_model_as_the_api_does(client, api_frames) -> None:
    name = client.get("/api/model").json()["name"]
    assert {t["source"]["model"] for t in sourced_tensors(api_frames)} == {name}
    assert {t["derived_from"]["model"] for t in derived_tensors(api_frames)} == {name}


def test_the_deck_validates_and_keeps_the_outline_order() -> None:
    deck = load_deck(DECK)
    assert needs_model(deck)
    assert [s.id for s in deck.slides] == IDEAS
    steps = [st for s in deck.slides for st in s.steps]
    assert 25 <= len(steps) <= 35
    assert all(s.notes.strip() for s in deck.slides)
    assert all(st.caption.strip() and st.narration.strip() for st in steps)
    assert all(st.frame is not None for s in deck.slides if s.template != "title" for st in s.steps)


def test_every_tensor_from_the_model_says_where_it_comes_from(api_frames) -> None:
    kinds = {t["derived_from"]["quantity"] for t in derived_tensors(api_frames)}
    assert kinds == {"scores", "scaled", "masked", "previous", "first", "induction"}
    assert len(sourced_tensors(api_frames)) == 6  # slide 2's map, the real map, its row, the three jobs' examples
    assert all(set(t["source"]) == {"model", "text", "layer", "head"} for t in sourced_tensors(api_frames))
    for slide in ("real-thing", "real-map", "jobs"):
        for f in api_frames[slide]:
            assert all(t.get("source") or t.get("derived_from") for t in f["tensors"]), (slide, f["step"])
    captions = [f["caption"] for fs in api_frames.values() for f in fs]
    assert all("{" not in c for c in captions) and len(captions) == sum(map(len, api_frames.values()))


def _softmax(row: np.ndarray) -> np.ndarray:
    e = np.exp(row - row[np.isfinite(row)].max())
    return e / e.sum()


def _cells(t: dict) -> np.ndarray:
    return np.array([[-math.inf if v is None else v for v in row] for row in t["values"]])


def loop_measure(w: np.ndarray, measure: str) -> float:
    """An independent measure of one head's (n, n) weights, as a plain loop."""
    n = len(w)
    if measure == "previous":
        picks = [w[i][i - 1] for i in range(1, n)]
    elif measure == "first":
        picks = [w[i][0] for i in range(1, n)]
    else:
        half = n // 2
        picks = [w[i][i - half + 1] for i in range(half, n)]
    return 100 * sum(picks) / len(picks)


def test_each_source_tensor_equals_the_api(client, api_frames) -> None:
    """Asked for exactly the layer and head it names, the API answers the tensor's numbers."""
    for t in sourced_tensors(api_frames):
        src = t["source"]
        r = client.post("/api/model/attention", json={"text": src["text"], "layers": [src["layer"]],
                                                     "heads": [src["head"]]})
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["layers"][0]["layer"], body["layers"][0]["heads"][0]["head"]) == (src["layer"], src["head"])
        w = np.array(body["layers"][0]["heads"][0]["weights"])  # 4 decimals by default
        assert tuple(t["shape"]) == w.shape
        assert np.allclose(_cells(t), w[np.ix_(t["row_index"], t["col_index"])], atol=6e-5), t["name"]


def test_each_derived_tensor_is_recomputed_from_the_api(api_frames, api_weights) -> None:
    for t in derived_tensors(api_frames):
        src = t["derived_from"]
        tokens, w = api_weights[src["text"]]
        if src["quantity"] == "rope":  # q and k re-placed: test_rope_scores_depend_on_the_offset_only
            continue
        assert t["shape"][-1] in (len(tokens), 30)
        shown = _cells(t)
        rows, cols = t["row_index"], t["col_index"]
        if src["quantity"] in ("scores", "scaled", "masked"):
            logits = shown / (8 if src["quantity"] == "scores" else 1)
            logits = np.where(np.tril(np.ones_like(logits, bool)), logits, -math.inf)
            got = np.array([_softmax(r) for r in logits])
            assert np.allclose(got, w[src["layer"], src["head"]], atol=1e-4), t["name"]
        elif src["quantity"] in ("previous", "first", "induction"):
            for r, head in enumerate(rows):
                for c, layer in enumerate(cols):
                    assert shown[r, c] == pytest.approx(loop_measure(w[layer, head], src["quantity"]), abs=1e-4)


def test_the_head_shown_for_each_job_is_the_top_scorer(api_frames, api_weights) -> None:
    examples = [f["tensors"][0] for f in api_frames["jobs"] if f["tensors"] and f["tensors"][0]["name"] == "example"]
    assert len(examples) == 3
    for t, measure in zip(examples, ("previous", "first", "induction"), strict=True):
        src = t["source"]
        _, w = api_weights[src["text"]]
        grid = np.array([[loop_measure(w[layer, h], measure) for h in range(w.shape[1])]
                         for layer in range(w.shape[0])])
        assert grid[src["layer"], src["head"]] >= grid.max() - 1e-6, (measure, src)
        assert f"layer {src['layer']}, head {src['head']}" in t["label"]


def test_rope_scores_depend_on_the_offset_only(api_frames, real_model) -> None:
    """The rope widget's scores (tests/test_rope_gqa.py checks them against a naive rotation): one
    distance at several places gives one score; several distances, several; the real pair's score
    is the one the model computed in the sentence."""
    offsets, places = (next(w["data"] for w in api_frames["rope"][k]["widgets"] if w["type"] == "rope") for k in (1, 2))
    assert np.ptp([c["score"] for c in places["columns"]]) < 1e-4
    assert np.ptp([c["score"] for c in offsets["columns"]]) > 1.0
    real = offsets["columns"][offsets["marked"]]
    text = load_deck(DECK).story.sentence
    layer, head = (int(x) for x in re.findall(r"layer (\d+), head (\d+)", offsets["title"])[0])
    maps = real_model.run(text, layers=[layer], heads=[head], want=("q", "k", "scores"))
    assert real["score"] == pytest.approx(float(maps.head(layer, head).scores[real["q_pos"], real["k_pos"]]), abs=1e-4)


def test_the_last_slide_links_to_the_lab_with_the_sentence(api_frames) -> None:
    link = next(w for f in api_frames["same-different"] for w in f["widgets"] if w["type"] == "link")
    query = parse_qs(urlsplit(link["data"]["href"]).query)
    mapped = next(t for t in api_frames["real-map"][-1]["tensors"] if t["name"] == "map")["source"]  # the weights
    assert urlsplit(link["data"]["href"]).path == "/lab"
    assert query == {"text": [mapped["text"]], "source": ["model"], "layer": [str(mapped["layer"])],
                     "head": [str(mapped["head"])]}


@pytest.mark.parametrize("href", ["https://elsewhere.example/lab", "//elsewhere.example/lab", "lab?text=x", "/\\evil"])
def test_a_link_widget_stays_on_this_site(href) -> None:
    from pydantic import ValidationError

    from attention_talk.frames.kit.widgets import widget

    with pytest.raises(ValidationError, match="href"):
        widget("link", "lab", (0, 0, 10, 10), {"title": "t", "text": "x", "href": href})


def _boxes(frame: dict) -> list[dict]:
    return [x["box"] for group in ("tensors", "widgets", "notes") for x in frame[group]]


def test_every_figure_stands_on_the_stage_grid(api_frames) -> None:
    """Boxes stay in the band between the title and the caption (kit/layout.py's TOP, BOTTOM) and
    inside its margins (LEFT, RIGHT), and each step's drawing starts at the left margin."""
    from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP

    off, indented = [], []
    for slide, frames in api_frames.items():
        for f in frames:
            boxes = _boxes(f)
            off += [(slide, f["step"], b) for b in boxes if b["x"] < LEFT or b["x"] + b["w"] > RIGHT + 0.5
                    or b["y"] < TOP or b["y"] + b["h"] > BOTTOM + 0.5]
            if boxes and min(b["x"] for b in boxes) != LEFT:
                indented.append((slide, f["step"]))
    assert off == [] and indented == []


def test_a_slide_keeps_its_note_in_one_place(api_frames) -> None:
    """A note that stays on screen from step to step does not jump: on each slide, every step that
    shows one note shows it in the same box (a note of several per step keeps its box by id)."""
    moved = {}
    for slide, frames in api_frames.items():
        single = {(n["box"]["x"], n["box"]["y"], n["box"]["w"]) for f in frames if len(f["notes"]) == 1
                  for n in f["notes"]}
        by_id: dict[str, set] = {}
        for f in frames:
            for n in f["notes"]:
                by_id.setdefault(n["id"], set()).add(tuple(n["box"].values()))
        if len(single) > 1 or any(len(b) > 1 for b in by_id.values()):
            moved[slide] = sorted(single)
    assert moved == {}
