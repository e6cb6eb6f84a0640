"""Chapter 1 as a person sees it at 1280 × 720: numbers at 20 px or more, about 80 text items per
step at most, nothing in the caption band, every box inside the grid's margins, a drawing that
reaches through the band between title and caption, notes and matrices that keep their place from
step to step, one colour per role, the notation A / Z / O, honest labels about the real model, and
a causal story that never reads ahead. The screen estimates come from tests/screen_check.py (the
matrix layout of static/js/views/matrix.js)."""

from __future__ import annotations

import itertools
import re

import numpy as np

from attention_talk.paths import data_dir
from screen_check import MIN_FONT, band_share, cell_layout, off_grid, outside, shown_cells, text_items

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


def test_every_box_keeps_to_the_grid(frames) -> None:
    """Left and right edges on the layout grid (VISUAL.md §4: 48 px margins), on every step."""
    assert [(at, what) for at, f in every_frame(frames) for what in off_grid(f)] == []


MIN_BAND = 0.55  # VISUAL.md §4: the drawing covers at least 55 % of the band's height on every step


def test_every_step_reaches_through_the_band(frames) -> None:
    """No step leaves the lower half empty: the drawn extents of its matrices, notes and widgets
    cover at least 55 % of the band between title and caption (the browser measures the same on a
    screenshot: tests/browser/test_stage_use.py)."""
    thin = [(at, round(band_share(f, TITLE_BLOCK if at.startswith("title ") else None), 2))
            for at, f in every_frame(frames)]
    assert [(at, share) for at, share in thin if share < MIN_BAND] == []


# The title slide's title and subtitle (templates/slides/title.html, centred above the caption bar):
# the deck's title and two lines of subtitle, about 270 to 490 stage units; its figure goes below.
TITLE_BLOCK = (270.0, 490.0)


# Things that do move between two steps of a slide, on purpose: the motion is the point.
MOVES = {
    ("query", 1, "widget sentence"): "the “?” under the chips give way to one arrow: the chips stay",
    ("query-matrix", 1, "tensor W_Q"): "the matrix alone becomes the middle of x · W_Q",
    ("attention-map", 3, "tensor map"): "Q and Kᵀ leave; the map grows into their room",
    ("attention-map", 5, "note about"): "the map makes room for M beside it; the note goes under both",
    ("softmax", 8, "tensor weights"): "A moves into A · V",
    ("many-heads", 3, "note about"): "the concatenation leaves; the bill's note sits beside the heads",
    ("enriched", 4, "tensor O"): "O moves into X + O",
}


def _placed(f):
    return {**{f"note {n.id}": n.box for n in f.notes}, **{f"tensor {t.name}": t.box for t in f.tensors},
            **{f"widget {w.id}": w.box for w in f.widgets}}


def test_what_stays_on_screen_keeps_its_place(frames) -> None:
    """A note, matrix or widget on two steps in a row of a slide keeps its box (the designer saw note
    boxes jump at 7/2 → 7/3 and 11/3), but for the moves listed in MOVES."""
    jumps = []
    for slide, fs in frames.items():
        for a, b in itertools.pairwise(fs):
            was, now = _placed(a), _placed(b)
            jumps += [(slide, a.step, what) for what in was.keys() & now.keys()
                      if was[what] != now[what] and (slide, a.step, what) not in MOVES]
    assert sorted(jumps) == []


def test_the_neighbour_arcs_never_read_ahead(deck, frames) -> None:
    toks = deck.story.tokens
    dog = toks.index("dog")
    (arcs,) = frames["tokens-need-context"][3].widgets
    links = np.array(arcs.data.links)
    assert np.all(links[dog + 1:] == 0.0)  # no arc to a later token
    weights = next(t for t in frames["softmax"][6].tensors if t.name == "weights")
    np.testing.assert_allclose(links, weights.values[dog], atol=1e-6)  # as strong as the engine's weights
    assert np.argmax(links) == toks.index("old")


def test_the_masked_map_carries_its_own_title(frames) -> None:
    # The mask step draws M beside the map, then the sum, each with its own title; softmax starts from that sum.
    apart, added = (frames["attention-map"][i].widgets[0].data for i in (5, 6))
    assert (apart.scores_label, apart.mask_label, added.result_label) == ("Q·Kᵀ", "M: causal", "Q·Kᵀ + M")
    masked = next(t for t in frames["softmax"][0].tensors if t.name == "map")
    assert masked.label == "masked map Q·Kᵀ + M"
    assert masked.kind == "mask" and any(v is None for r in masked.values for v in r)


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
    for figure in ("187,105,280", "469,762,048", "2,048", "plain multi-head"):
        assert figure in real.notes[0].text and figure in real.narration, figure
    # positions are never introduced in chapter 1: no score width "128 + 64 for positions" (chapter 4 has MLA)
    assert "192" not in real.notes[0].text + real.narration and "position" not in real.notes[0].text + real.narration
    assert "Chapter four" in real.notes[0].text
    bars = {w.id: w.data for w in real.widgets}["real-weights"]
    assert bars.values[2] == 48_758_784 and bars.labels[2] == "MLA's W_Q"  # W_Q's figure is on the bars
