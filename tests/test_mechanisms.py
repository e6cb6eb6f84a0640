"""The mechanism widgets' numbers are the engine's (issue 30, "Done when"): the softmax kind's e^x
bars are exp(score − max) of the map's row and its weights the map's weights; the mask kind's sum is
scores + M with exactly the engine's blocked cells, for any 0/−∞ mask the engine makes; the scaling
kind's scaled scores are the engine's scores / √d_k, counted on the raw scores' bins."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from attention_talk.engine import attend, causal_mask, padding_mask, softmax
from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.frames.kit.mechanisms import histogram_edges, mask_addition, scaling_spread, softmax_process
from attention_talk.frames.step_by_step.inputs import build_story
from attention_talk.frames.widgets import WIDGET_KINDS

DEMO = Path(__file__).parent / "browser" / "decks" / "mechanisms-demo.yaml"
SENTENCE = ["the", "old", "dog", "sleeps", "by", "the", "fire"]


@pytest.fixture(scope="module")
def story_attention():
    """The story model's causal head, as chapter 1 computes it (the demo deck's sentence and seed)."""
    return build_story(tuple(SENTENCE), seed=7).attention(causal=True)


@pytest.fixture(scope="module")
def demo_frames():
    return build_deck_frames(load_deck(DEMO))


def widgets_of(frames, slide: str):
    return [f.widgets[0] for f in frames[slide]]


# ---- softmax -----------------------------------------------------------------------------------


def test_the_softmax_bars_are_the_maps_row_step_by_step(demo_frames, story_attention) -> None:
    att, focus = story_attention, SENTENCE.index("dog")
    row = att.masked[focus]  # scaled scores + the causal mask: what softmax is taken of
    for w in widgets_of(demo_frames, "softmax"):
        d = w.data
        allowed = np.isfinite(row)
        assert d.scores == [float(v) if ok else None for v, ok in zip(row, allowed, strict=True)]
        assert d.row_max == pytest.approx(row[allowed].max())
        np.testing.assert_allclose(d.exps, np.exp(row - row[allowed].max()), rtol=1e-12)
        np.testing.assert_allclose(d.weights, att.weights[focus], rtol=1e-12, atol=1e-15)  # the map's weights
        assert d.total == pytest.approx(sum(d.exps)) and sum(d.weights) == pytest.approx(1.0, abs=1e-12)
        assert [e for e, ok in zip(d.exps, allowed, strict=True) if not ok] == [0.0] * int((~allowed).sum())
    assert [w.data.stage for w in widgets_of(demo_frames, "softmax")] == ["scores", "shift", "exp", "sum", "divide"]


def test_softmax_process_on_any_row_equals_the_engines_softmax() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        row = rng.normal(0, 4, 9)
        row[rng.random(9) < 0.3] = -np.inf
        row[rng.integers(9)] = rng.normal()  # at least one key kept
        d = softmax_process(row, [f"k{j}" for j in range(9)], stage="divide", title="t")
        np.testing.assert_allclose(d.weights, softmax(row), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(d.exps, np.exp(row - row[np.isfinite(row)].max()))
        assert max(d.exps) == 1.0 and d.shifted[int(np.argmax(row))] == 0.0


@pytest.mark.parametrize("row, labels, message", [
    ([-np.inf, -np.inf], ["a", "b"], "at least one unmasked"),
    ([1.0, 2.0], ["a"], "one label per entry"),
    ([[1.0, 2.0]], ["a", "b"], "one row"),
])
def test_softmax_process_refuses_what_it_cannot_draw(row, labels, message) -> None:
    with pytest.raises(ValueError, match=message):
        softmax_process(row, labels, stage="scores", title="t")


# ---- mask --------------------------------------------------------------------------------------


def test_the_mask_added_is_the_engines_mask(demo_frames, story_attention) -> None:
    att = story_attention
    for w in widgets_of(demo_frames, "mask"):
        d = w.data
        np.testing.assert_allclose(d.scores, att.scaled, rtol=1e-12)
        blocked = np.array([[v is None for v in r] for r in d.mask])
        assert (blocked == np.isneginf(causal_mask(len(SENTENCE)))).all()  # exactly the engine's blocked cells
        result = np.array([[-np.inf if v is None else v for v in r] for r in d.result])
        np.testing.assert_array_equal(result, att.masked)  # scores + M, the map softmax reads
        assert all(v == 0.0 for r in d.mask for v in r if v is not None)


def test_the_padded_slide_adds_the_engines_padding_mask(demo_frames, story_attention) -> None:
    (w,) = widgets_of(demo_frames, "padded")
    n = len(SENTENCE)
    expected = causal_mask(n) + padding_mask(n - 2, total=n)
    blocked = np.array([[v is None for v in r] for r in w.data.mask])
    assert (blocked == np.isneginf(expected)).all() and blocked[:, -2:].all()
    np.testing.assert_array_equal(np.array([[-np.inf if v is None else v for v in r] for r in w.data.result]),
                                  story_attention.scaled + expected)


def test_mask_addition_takes_any_mask_the_engine_makes() -> None:
    rng = np.random.default_rng(5)
    s = rng.normal(size=(4, 6))
    for mask in (causal_mask(4, 6), padding_mask([True, True, False, True, True, False], 4),
                 causal_mask(4, 6) + padding_mask(5, 4, total=6), np.zeros((4, 6))):
        d = mask_addition(s, mask, list("abcd"), list("uvwxyz"), stage="added", scores_label="S", mask_label="M",
                          result_label="S + M")
        a = attend(s, np.eye(6), np.eye(6), mask=mask, scale=1.0)  # the engine's own masked map: s · I + M
        np.testing.assert_array_equal(np.array([[-np.inf if v is None else v for v in r] for r in d.result]), a.masked)


@pytest.mark.parametrize("mask, message", [
    (np.full((2, 2), 0.5), "0 and −∞ only"),
    (np.zeros((2, 3)), "shape"),
    (np.zeros((2, 2), dtype=bool), "additive"),
])
def test_mask_addition_refuses_other_masks(mask, message) -> None:
    with pytest.raises(ValueError, match=message):
        mask_addition(np.ones((2, 2)), mask, ["a", "b"], ["a", "b"], stage="added", scores_label="S",
                      mask_label="M", result_label="S + M")


# ---- scaling -----------------------------------------------------------------------------------


def test_the_scaling_histograms_count_the_engines_scores(demo_frames, story_attention) -> None:
    att, focus = story_attention, SENTENCE.index("dog")
    for w in widgets_of(demo_frames, "scaling"):
        d = w.data
        edges = np.array(d.edges)
        assert d.divisor == pytest.approx(np.sqrt(att.q.shape[1]))  # √d_k = √128
        np.testing.assert_allclose(att.scores / d.divisor, att.scaled, rtol=1e-12)  # what it counts is the engine's
        assert d.raw_counts == np.histogram(att.scores.ravel(), bins=edges)[0].tolist()
        assert d.scaled_counts == np.histogram(att.scaled.ravel(), bins=edges)[0].tolist()
        assert sum(d.raw_counts) == sum(d.scaled_counts) == att.scores.size  # every score in a bin
        np.testing.assert_allclose(d.scaled_weights, att.weights[focus], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(d.raw_weights, softmax(att.scores[focus] + att.mask[focus]), atol=1e-15)
        assert d.masked == np.isneginf(att.mask[focus]).tolist()
        assert np.std(att.scaled) < np.std(att.scores) and max(d.scaled_weights) < max(d.raw_weights)  # flatter


def test_histogram_edges_cover_the_values_on_round_ticks() -> None:
    for values in (np.array([-3.2, 0.5, 27.9]), np.array([0.01, 0.02]), np.array([-40.0, -1.0]), np.zeros(3)):
        edges, ticks = histogram_edges(values, bins=10)
        assert edges[0] <= min(values.min(), 0) and edges[-1] >= max(values.max(), 0) and len(edges) == 11
        assert ticks[0] == edges[0] and ticks[-1] == pytest.approx(edges[-1]) and 2 <= len(ticks) <= 7


def test_scaling_spread_names_the_spread() -> None:
    s = np.arange(16.0).reshape(4, 4)
    d = scaling_spread(s, 0.25, 1, np.zeros(4), list("abcd"), stage="raw", raw_label="raw · {spread}",
                       scaled_label="scaled · {spread}", row_title="t")
    assert d.raw_label == f"raw · {np.std(s):.1f}" and d.scaled_label == f"scaled · {np.std(s) / 4:.2f}"
    assert d.divisor == 4.0


# ---- the Python models and the JS views read the same keys -------------------------------------

VIEWS = Path(__file__).resolve().parents[1] / "static" / "js" / "views"


@pytest.mark.parametrize("kind", ["softmax", "mask", "scaling"])
def test_each_view_reads_exactly_its_models_fields(kind) -> None:
    """Every ``d.<field>`` the view reads is a field of the kind's data model, and the view reads every
    field of it (softmax.js also through its VALUES table, stage → field): a field renamed on one side
    only fails here."""
    fields = set(WIDGET_KINDS[kind].model_fields["data"].annotation.model_fields)
    source = (VIEWS / f"{kind}.js").read_text(encoding="utf-8")
    read = set(re.findall(r"\bd\.([a-z_]+)", source))
    table = re.search(r"const VALUES = \{([^}]*)\}", source)
    through_table = set(re.findall(r'"([a-z_]+)"', table.group(1))) if table else set()
    assert read - fields == set(), f"{kind}.js reads keys its model does not have"
    assert through_table <= fields
    assert fields - read - through_table == set(), f"{kind}.js never reads these fields"


# ---- docs/decks.md's examples ------------------------------------------------------------------


def test_every_documented_example_step_validates_and_draws_its_kind(tmp_path) -> None:
    """Each mechanism kind's example in docs/decks.md (frames/catalog.py MECHANISM_EXAMPLES) is a step
    a deck can use as it is: it validates, its words fill, and it draws that kind."""
    import yaml

    from attention_talk.frames.catalog import MECHANISM_EXAMPLES, MODEL_EXAMPLES

    examples = {k: v for k, v in MECHANISM_EXAMPLES.items() if k not in MODEL_EXAMPLES}  # the others: test_rope_gqa
    assert set(examples) == {"softmax", "mask", "scaling", "flash", "rnn"}
    deck = yaml.safe_load(DEMO.read_text(encoding="utf-8"))
    deck["id"] = "examples"
    deck["slides"] = [{"id": kind, "title": kind, "notes": "an example", "steps": yaml.safe_load(step)}
                      for kind, step in examples.items()]
    path = tmp_path / "examples.yaml"
    path.write_text(yaml.safe_dump(deck, allow_unicode=True), encoding="utf-8")
    frames = build_deck_frames(load_deck(path))
    drawn = {kind: [w.type for f in frames[kind] for w in f.widgets] for kind in examples}
    assert {kind: types[0] for kind, types in drawn.items()} == {kind: kind for kind in examples}  # that kind first
    assert all(types.count(kind) == 1 for kind, types in drawn.items())
