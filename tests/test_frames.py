"""Frames: computed by the engine from the deck's story, deterministic, inside the stage."""

from __future__ import annotations

import numpy as np
import pytest

from attention_talk.frames import build_deck_frames
from attention_talk.frames.contract import STAGE_H, STAGE_W
from attention_talk.frames.kit.tensors import tensor, window
from attention_talk.frames.step_by_step.inputs import build_story
from attention_talk.paths import data_dir

DECK = data_dir("slides") / "attention-step-by-step.yaml"


def test_window_keeps_first_and_last() -> None:
    assert window(5, 8) == [0, 1, 2, 3, 4]
    assert window(7168, 6) == [0, 1, 2, 3, 4, 7167]


def test_tensor_window_labels_and_minus_infinity() -> None:
    a = np.arange(20.0).reshape(2, 10)
    a[0, 9] = -np.inf
    t = tensor("t", "T", "scores", a, (0, 0, 100, 100), rows=["a", "b"], max_cols=4)
    assert t.shape == (2, 10)
    assert t.cols == ["1", "2", "3", "10"]
    assert t.values == [[0.0, 1.0, 2.0, None], [10.0, 11.0, 12.0, 19.0]]
    big = tensor("x", "X", "input", np.zeros((7, 7168)), (0, 0, 10, 10), max_cols=6)
    assert big.cols[-1] == "7,168" and big.shape == (7, 7168)


def test_frames_are_deterministic(deck, frames) -> None:
    again = build_deck_frames(deck)
    assert [f.model_dump() for f in again["attention-map"]] == [f.model_dump() for f in frames["attention-map"]]


def test_every_box_is_inside_the_stage(frames) -> None:
    for slide_frames in frames.values():
        for f in slide_frames:
            for item in [*f.tensors, *f.notes]:
                b = item.box
                assert b.x >= 0 and b.x + b.w <= STAGE_W and b.y >= 0 and b.y + b.h <= STAGE_H, (f.slide, item)


def test_map_values_are_the_engines(deck, frames) -> None:
    story = build_story(deck.story.tokens, seed=deck.story.seed)
    att = story.attention(causal=True)
    steps = frames["attention-map"]
    scores = next(t for t in steps[3].tensors if t.name == "map")
    np.testing.assert_allclose(np.array(scores.values, dtype=float), att.scores, atol=1e-6)
    masked = steps[6].widgets[0].data.result  # the mask step: Q·Kᵀ + M, drawn by the mask widget
    dog = deck.story.tokens.index("dog")
    assert masked[dog][dog + 1:] == [None] * (6 - dog)  # −∞ above the diagonal
    assert masked[dog][: dog + 1] == pytest.approx(att.scores[dog, : dog + 1].tolist(), abs=1e-12)


def test_dot_product_note_recomputes_the_cell(deck, frames) -> None:
    story = build_story(deck.story.tokens, seed=deck.story.seed)
    cell = frames["attention-map"][2]
    (note,) = cell.notes
    dog, old = deck.story.tokens.index("dog"), deck.story.tokens.index("old")
    assert note.text.endswith(f"= {story.q[dog] @ story.k[old]:.1f}")
    assert "(128 products)" in note.text
    assert next(t for t in cell.tensors if t.name == "map").highlight.cells == [(dog, old)]


def test_captions_come_from_the_deck(deck, frames) -> None:
    for slide in deck.slides:
        assert [f.caption for f in frames[slide.id]] == [s.caption for s in slide.steps]
        assert [f.step for f in frames[slide.id]] == list(range(1, len(slide.steps) + 1))
