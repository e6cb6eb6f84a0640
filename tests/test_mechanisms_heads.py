"""The many-heads widget kinds against the engine: chapter 1's designed heads (``story.head-maps``,
``story.concat``) and chapter 3's heatmap over every head of the real model (``real.heatmap``).

- the maps are softmax(Q·Kᵀ/√d_k + M) of the designed weights, recomputed here head by head;
- each head's named job is the job the measure (``engine.heads.share``) scores it highest on, and
  the heads, designed to differ, are named after eight different jobs: the ones they were designed for;
- the concat widget's shapes and numbers are ``engine.multi_head``'s on the designed weights;
- the heatmap's values are the measure over every head, its winner ``best_head``, its zoomed map
  that head's weights from the model run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from attention_talk.engine import heads as measures
from attention_talk.engine import multi_head
from attention_talk.formatting import scientific
from attention_talk.frames import build_deck, build_deck_frames, load_deck
from attention_talk.frames.real_heads.analysis import analyse
from attention_talk.frames.step_by_step.designed_heads import DESIGNS, build_heads
from attention_talk.frames.step_by_step.inputs import build_story
from attention_talk.frames.step_by_step.mechanisms_heads import story_jobs
from attention_talk.paths import data_dir

DECKS = Path(__file__).parent / "browser" / "decks"
# what each design was meant to read → the job the measure should name it after
DESIGNED_FOR = {"previous": "previous token", "self": "itself", "first": "first token", "two-back": "two back",
                "adjective": "the adjective", "noun": "the noun", "verb": "the verb",
                "preposition": "the preposition"}


@pytest.fixture(scope="module")
def story_deck():
    deck = load_deck(DECKS / "mechanisms-heads.yaml")
    return deck, build_deck_frames(deck)


@pytest.fixture(scope="module")
def heads(story_deck):
    deck, _ = story_deck
    return build_heads(build_story(deck.story.tokens, seed=deck.story.seed), seed=deck.story.seed)


def data(frames, slide: str, step: int) -> dict:
    (w,) = frames[slide][step - 1].widgets
    return w.model_dump(mode="json")["data"]


def plain_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_maps_are_the_softmax_of_the_designed_scores(story_deck, heads) -> None:
    _, frames = story_deck
    drawn = data(frames, "head-maps", 1)
    n, d_k = len(heads.tokens), heads.w_q.shape[1] // len(DESIGNS)
    assert not drawn["named"] and len(drawn["heads"]) == len(DESIGNS) == 8
    masked = np.where(np.tril(np.ones((n, n), bool)), 0.0, -np.inf)
    for h, shown in enumerate(drawn["heads"]):
        cols = slice(h * d_k, (h + 1) * d_k)
        q, k = heads.x @ heads.w_q[:, cols], heads.x @ heads.w_k[:, cols]  # (n, d_k)
        expected = plain_softmax(q @ k.T / np.sqrt(d_k) + masked)
        np.testing.assert_allclose(shown["weights"], expected, atol=1e-12)
    assert drawn["tokens"] == list(heads.tokens)


def test_each_head_is_named_by_the_measure_it_scores_highest_on(story_deck, heads) -> None:
    _, frames = story_deck
    assert_named_by_the_measure(data(frames, "head-maps", 2), heads)


def assert_named_by_the_measure(drawn: dict, heads) -> None:
    """Each drawn head's job is the one engine.heads.share scores it highest on, its cells that job's."""
    jobs = story_jobs(heads.tokens)
    for h, shown in enumerate(drawn["heads"]):
        scores = {j.name: float(measures.share(heads.weights[h], j.targets)) for j in jobs if j.targets.any()}
        best = max(scores, key=scores.get)
        assert shown["job"] == best and shown["score"] == pytest.approx(scores[best], abs=1e-12)
        target = next(j for j in jobs if j.name == best).targets
        assert sorted(map(tuple, shown["targets"])) == sorted(zip(*map(list, np.nonzero(target)), strict=True))
    named = [shown["job"] for shown in drawn["heads"]]
    assert named == [DESIGNED_FOR[d] for d in heads.designs]  # the design shows: eight different jobs
    assert all(shown["score"] > 0.8 for shown in drawn["heads"])


def test_the_fixed_jobs_are_the_engines_own_measures(heads) -> None:
    jobs = {j.name: j.targets for j in story_jobs(heads.tokens)}
    w = heads.weights
    assert measures.share(w, jobs["previous token"]) == pytest.approx(measures.previous_token(w))
    assert measures.share(w, jobs["first token"]) == pytest.approx(measures.first_token(w))
    assert measures.share(w, jobs["itself"]) == pytest.approx(measures.self_token(w))


def test_the_concat_shapes_and_numbers_are_the_engines_multi_head(story_deck, heads) -> None:
    deck, frames = story_deck
    run = multi_head(heads.x, heads.w_q, heads.w_k, heads.w_v, heads.w_o, heads=len(DESIGNS), causal=True)
    focus = list(deck.story.tokens).index(deck.story.focus)
    for step, stage in enumerate(("heads", "concat", "product"), start=1):
        shown = data(frames, "concat", step)
        assert shown["stage"] == stage
        assert [tuple(b["shape"]) for b in shown["blocks"]] == [h.output.shape for h in run.heads] == [(7, 128)] * 8
        assert tuple(shown["concat"]) == run.concat.shape == (7, 1024)
        assert tuple(shown["w_o"]) == run.w_o.shape == (1024, 7168)
        assert tuple(shown["output"]) == run.output.shape == (7, 7168)
        assert shown["token"] == deck.story.focus and shown["columns"] == [1, 2, 3, 7168]
        np.testing.assert_allclose(shown["values"], run.output[focus, [c - 1 for c in shown["columns"]]], atol=1e-12)
    np.testing.assert_allclose(run.concat @ run.w_o, run.sum_of_heads, atol=1e-9)


@pytest.fixture(scope="module")
def talk_deck():
    deck = load_deck(data_dir("slides") / "attention-step-by-step.yaml")
    return deck, build_deck_frames(deck)


def test_chapter_one_draws_the_designed_heads_and_names_them_by_the_measure(talk_deck, heads) -> None:
    """Chapter 1's "many heads" (15/1–15/3): the eight designed heads' maps, named by the measure,
    then concatenated × W_O with the check of Σ_h Z_h·W_O,h against it; its words name what it draws."""
    deck, frames = talk_deck
    assert list(heads.tokens) == list(deck.story.tokens) and deck.story.seed == 7  # the demo deck's story
    maps, named = data(frames, "many-heads", 1), data(frames, "many-heads", 2)
    assert not maps["named"] and named["named"]
    np.testing.assert_allclose([h["weights"] for h in maps["heads"]], heads.weights, atol=1e-12)
    assert_named_by_the_measure(named, heads)
    assert [h["job"] for h in named["heads"]] == [DESIGNED_FOR[d] for d in heads.designs]
    product = data(frames, "many-heads", 3)
    assert product["stage"] == "product" and tuple(product["concat"]) == heads.run.concat.shape
    diff = float(np.max(np.abs(heads.run.concat @ heads.run.w_o - heads.run.sum_of_heads)))
    assert diff < 1e-9
    (note,) = frames["many-heads"][2].notes
    assert f"Σ of the 8 heads' Z_h·W_O,h against concat · W_O: largest difference {scientific(diff)}" in note.text
    slide = next(s for s in deck.slides if s.id == "many-heads")
    assert slide.steps[0].caption == "8 designed heads, small enough to see: 8 maps"
    assert "128 in DeepSeek-V3.2" in slide.steps[0].narration and "{" not in slide.steps[2].narration
    counters = [frames["many-heads"][i].counters[0].label for i in range(3)]
    assert "· 1 head ·" in counters[0] and "· 128 heads ·" in counters[2]  # the count is at full width


@pytest.fixture(scope="module")
def model_deck(real_model):
    deck, frames = build_deck(load_deck(DECKS / "mechanisms-heads-model.yaml"), real_model)
    return deck, frames, analyse(real_model, deck.story.sentence, deck.story.seed)


@pytest.mark.parametrize("slide, step, measure", [("heatmap", 1, "previous"), ("heatmap", 3, "previous"),
                                                  ("induction", 1, "induction")])
def test_the_heatmap_is_the_measure_its_winner_best_head(model_deck, slide, step, measure) -> None:
    _deck, frames, an = model_deck
    shown = data(frames, slide, step)
    run = an.repeated if measure == "induction" else an.sentence
    weights = np.stack([np.stack([run.head(layer, h).weights for h in run.heads]) for layer in run.layers])
    grid = measures.score(weights, measure, len(run.tokens) // 2 if measure == "induction" else None)  # (L, h)
    np.testing.assert_allclose(shown["values"], grid.T, atol=1e-12)
    layer, head = measures.best_head(grid)
    assert tuple(shown["winner"]) == (head, layer)
    assert shown["rows"] == [str(h) for h in range(grid.shape[1])]
    assert shown["cols"] == [str(x) for x in range(grid.shape[0])]
    if shown["stage"] == "zoom":
        n = len(run.tokens)
        rows = range(n // 2, n) if measure == "induction" else range(n)
        cols = range(n // 2 + 1) if measure == "induction" else range(n)
        np.testing.assert_allclose(shown["zoom"]["weights"], run.head(layer, head).weights[np.ix_(rows, cols)],
                                   atol=1e-12)
        assert shown["zoom"]["title"] == f"layer {layer}, head {head}"
