"""Chapter 1 as a person sees it at 1280 × 720: numbers at 20 px or more, about 80 text items per
step at most, nothing in the caption band, one colour per role, the notation A / Z / O, honest
labels about the real model, and a causal story that never reads ahead. The screen estimates
come from tests/screen_check.py (the matrix layout of static/js/views/matrix.js)."""

from __future__ import annotations

import re

import numpy as np

from attention_talk.paths import data_dir
from screen_check import MIN_FONT, cell_layout, outside, shown_cells, text_items

DECK = data_dir("slides") / "attention-step-by-step.yaml"
MAX_ITEMS = 82  # "about 80" visible text items per step, the slide title, caption and position included


def every_frame(frames):
    for slide, fs in frames.items():
        for f in fs:
            yield f"{slide} step {f.step}", f


def test_every_number_is_at_least_20_px(frames) -> None:
    small = [(at, t.name, round(cell_layout(t).font, 1)) for at, f in every_frame(frames) for t in f.tensors
             if shown_cells(t) and cell_layout(t).font < MIN_FONT]
    assert small == []


def test_no_step_is_crowded(frames) -> None:
    crowded = [(at, text_items(f)) for at, f in every_frame(frames) if text_items(f) > MAX_ITEMS]
    assert crowded == []


def test_nothing_reaches_the_caption_band_or_leaves_the_stage(frames) -> None:
    assert [(at, what) for at, f in every_frame(frames) for what in outside(f)] == []


def test_the_neighbour_arcs_never_read_ahead(deck, frames) -> None:
    toks = deck.story.tokens
    dog = toks.index("dog")
    (arcs,) = frames["tokens-need-context"][3].widgets
    links = np.array(arcs.data.links)
    assert np.all(links[dog + 1:] == 0.0)  # no arc to a later token
    weights = next(t for t in frames["softmax"][2].tensors if t.name == "weights")
    np.testing.assert_allclose(links, weights.values[dog], atol=1e-6)  # as strong as the engine's weights
    assert np.argmax(links) == toks.index("old")


def test_the_masked_map_carries_its_own_title(frames) -> None:
    # Stepping from "the row" to "the mask" keeps the tensor's name (the mask sweeps in) and changes its label.
    row, mask = (next(t for t in frames["attention-map"][i].tensors if t.name == "map") for i in (4, 5))
    assert (row.label, mask.label) == ("attention map Q·Kᵀ", "masked map Q·Kᵀ + M")
    assert mask.kind == "mask" and any(v is None for r in mask.values for v in r)


def test_learned_matrices_take_the_role_they_make(frames) -> None:
    """docs/colours.md: W_Q amber with the queries, W_K teal with the keys, W_V purple with the values;
    only the other learned weights (W_O) are the magenta "weight" role."""
    role = {"W_Q": "query", "W_K": "key", "W_V": "value", "W_O": "weight"}
    seen = set()
    for at, f in every_frame(frames):
        for t in f.tensors:
            if t.name.startswith("W_"):
                assert t.kind == role[t.name], (at, t.name)
                assert t.digits == 3, (at, t.name)  # a weight's small entries keep their digits
                seen.add(t.name)
    assert seen == set(role)
    # the notes that introduce a learned matrix or count its weights
    for slide, step, kind in [("query-dense", 3, "query"), ("query-matrix", 1, "query"), ("keys", 3, "key"),
                              ("values", 3, "value"), ("enriched", 3, "weight")]:
        (note,) = frames[slide][step - 1].notes
        assert note.kind == kind and re.search(r"W_[QKVO]|weights", note.text), (slide, step)
    bars = {w.id: w.kind for w in frames["many-heads"][4].widgets}
    assert bars == {"real-weights": "weight", "real-keys": "neutral"}


def words(frames, deck):
    for _, f in every_frame(frames):
        yield from (f.caption, f.narration, *(t.label for t in f.tensors), *(n.text for n in f.notes),
                    *(c.label for c in f.counters), *(c.formula for c in f.counters))
    yield from (s.notes for s in deck.slides)
    yield deck.subtitle


def test_one_notation_a_z_o(deck, frames) -> None:
    text = "\n".join(words(frames, deck))
    assert "weights·V" not in text and "weights × V" not in text and "A = weights" not in text
    labels = {t.label for _, f in every_frame(frames) for t in f.tensors}
    assert {"Z = A·V", "O = Z·W_O", "A = softmax"} <= labels


def test_honest_labels(deck, frames) -> None:
    text = "\n".join(words(frames, deck))
    assert "plain multi-head" in deck.subtitle
    assert "every count is a real one" not in text and "identical blocks" not in text
    assert "designed for the story, not trained" in frames["tokens-need-context"][0].notes[0].text
    stack = frames["first-block"][0]
    assert all(f in stack.narration for f in ("61", "first 3", "other 58", "129,280"))
    assert "plain multi-head" in frames["many-heads"][3].notes[0].text
    real = frames["many-heads"][4]
    for figure in ("187,105,280", "469,762,048", "48,758,784", "192", "2,048", "plain multi-head"):
        assert figure in real.notes[0].text and figure in real.narration, figure
