"""Chapter 1: every idea of the outline in order, counters that match FACTS, a story that holds."""

from __future__ import annotations

import itertools
import re

import numpy as np
import orjson
import pytest

from attention_talk.engine.costs import costs
from attention_talk.frames import build_deck_frames, build_frame, load_deck
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.step_by_step import chapter as chapter1
from attention_talk.frames.step_by_step.chapter import StoryContext
from attention_talk.frames.step_by_step.counter import flop_counter
from attention_talk.frames.step_by_step.growth import growth_sizes
from attention_talk.frames.step_by_step.heads import heads_check
from attention_talk.paths import data_dir
from derivation_check import all_derivations, check_all, missing_derivations

DECK = data_dir("slides") / "attention-step-by-step.yaml"

# The outline's ideas, in order: (slide id, number of key presses).
OUTLINE = [
    ("title", 1), ("first-block", 2), ("tokens-need-context", 4), ("query", 3), ("query-dense", 3),
    ("query-matrix", 3), ("keys", 3), ("every-token", 2), ("attention-map", 7), ("map-size", 3),
    ("values", 4), ("softmax", 10), ("enriched", 5), ("whole-operation", 2), ("many-heads", 5),
    ("sources", 1),
]


def flops_at(frames, slide: str, step: int) -> int:
    (c,) = [c for c in frames[slide][step - 1].counters if c.id.startswith("flops-")]
    return int(c.value)


def test_slides_and_steps_follow_the_outline(deck) -> None:
    assert [(s.id, len(s.steps)) for s in deck.slides] == OUTLINE
    assert deck.step_count >= 40
    assert all(s.notes.strip() for s in deck.slides)


def test_captions_are_filled_and_short(deck) -> None:
    for slide in deck.slides:
        for step in slide.steps:
            assert "{" not in step.caption and "{" not in step.narration
            assert len(step.caption) <= 62, step.caption  # one line at 40 px on the 1600 px stage
    captions = [s.caption for sl in deck.slides for s in sl.steps]
    assert "7 tokens, 7 rows of 7,168 numbers" in captions
    assert "7,168 × 128 = 917,504 weights" in captions
    assert "The layer's bill: 939,524,096 + 65,536·n FLOPs per token" in captions


def test_counter_follows_facts(frames) -> None:
    # FACTS.md: one head's W_Q on one token = 2 × 917,504; × 7 tokens; + W_K; ...
    assert flops_at(frames, "query-matrix", 3) == 1_835_008
    assert flops_at(frames, "every-token", 1) == 1_835_008 * 7
    assert flops_at(frames, "every-token", 2) == 2 * 1_835_008 * 7
    assert flops_at(frames, "attention-map", 4) == 2 * 1_835_008 * 7 + 2 * 128 * 7 * 7
    assert flops_at(frames, "values", 4) == 3 * 1_835_008 * 7 + 2 * 128 * 49
    assert flops_at(frames, "softmax", 9) == 3 * 1_835_008 * 7 + 4 * 128 * 49
    assert flops_at(frames, "enriched", 4) == 4 * 1_835_008 * 7 + 4 * 128 * 49
    assert flops_at(frames, "many-heads", 3) == 128 * (4 * 1_835_008 * 7 + 4 * 128 * 49)
    assert flops_at(frames, "many-heads", 4) == 939_524_096 + 65_536 * 7
    # the counter never goes down and appears from the W_Q step on
    steps = [(s, i) for s, n in OUTLINE for i in range(1, n + 1)]
    values = [flops_at(frames, s, i) for s, i in steps
              if any(c.id.startswith("flops-") for c in frames[s][i - 1].counters)]
    assert values[0] == 1_835_008
    per_sentence = values[:-2]  # the last two steps show the per-token bill
    assert per_sentence == sorted(per_sentence)


def test_each_counter_keeps_one_scope_stated_on_it(frames) -> None:
    """A counter's label starts with what it counts (heads, tokens); a new scope is a new counter (its
    own id: the chip is replaced, not grown), and one id never changes scope."""
    scopes: dict[str, set[str]] = {}
    for slide_frames in frames.values():
        for f in slide_frames:
            for c in f.counters:
                scopes.setdefault(c.id, set()).add(" · ".join(c.label.split(" · ")[1:3]))
    assert scopes == {"flops-1-token": {"1 head · 1 token"}, "flops-1-head": {"1 head · 7 tokens"},
                      "flops-all-heads": {"128 heads · 7 tokens"}, "flops-per-token": {"per token · 128 heads"}}


@pytest.mark.parametrize("n", [1, 7, 100, 4096])
def test_counter_total_is_the_cost_models_per_token(n) -> None:
    c = costs("deepseek-v3.2")
    layer = flop_counter(c, n, "heads").value
    assert layer == n * c.flops_per_token().at(n).value
    assert flop_counter(c, n, "per_token").value == 939_524_096 + 65_536 * n


def test_softmax_frames_hold_the_story(deck, frames) -> None:
    toks = deck.story.tokens
    dog = toks.index("dog")
    weights = next(t for t in frames["softmax"][6].tensors if t.name == "weights")
    row = np.array(weights.values[dog], dtype=float)
    assert np.argmax(row) == toks.index("old")
    assert row[dog] > row[0] and row[dog] > 0.1
    assert np.all(row[dog + 1:] == 0.0)
    assert row.sum() == pytest.approx(1.0, abs=1e-5)
    sums = next(t for t in frames["softmax"][6].tensors if t.name == "sums")
    assert [round(v[0], 6) for v in sums.values] == [1.0] * len(toks)
    note = frames["softmax"][9].notes[0].text
    assert re.search(r"“dog” becomes \d+% “old”", note)


def widget_data(frames, slide: str, step: int) -> dict:
    (w,) = frames[slide][step - 1].widgets
    return w.model_dump(mode="json")["data"]


def as_scores(values) -> np.ndarray:
    """A frame's row or matrix with null for −∞, as floats."""
    return np.array([[-np.inf if v is None else v for v in row] for row in np.atleast_2d(np.array(values, object))],
                    dtype=float).squeeze()


TENSOR_ATOL = 1e-5  # a tensor's values travel rounded to 6 decimals (the payload); widgets' data does not
SOFTMAX_PROCESS = [(2, "scores"), (3, "shift"), (4, "exp"), (5, "sum"), (6, "divide")]  # slide 12's steps


def test_the_softmax_process_is_the_focus_row_of_the_maps_around_it(deck, frames) -> None:
    """12/2–12/6 play softmax of the row of “dog”: its bars are the row of the scaled map 12/1 shows,
    e^x is exp(score − row max) of that row (a plain oracle), and the divided bars are the weights
    the next step (12/7, every row) shows in the row of “dog”."""
    toks = list(deck.story.tokens)
    dog = toks.index("dog")
    raw = as_scores(tensor_at(frames, "attention-map", 4, "map").values)  # Q·Kᵀ, the map of 9/4
    scaled = as_scores(tensor_at(frames, "softmax", 1, "scaled").values)[dog]  # Q·Kᵀ/√d_k + M, 12/1
    np.testing.assert_allclose(scaled[: dog + 1], raw[dog, : dog + 1] / np.sqrt(128), atol=TENSOR_ATOL)
    assert np.all(np.isneginf(scaled[dog + 1:]))
    top = max(v for v in scaled if np.isfinite(v))
    e = [0.0 if np.isneginf(v) else float(np.exp(v - top)) for v in scaled]  # the oracle, written out
    after = as_scores(tensor_at(frames, "softmax", 7, "weights").values)[dog]
    for step, stage in SOFTMAX_PROCESS:
        shown = widget_data(frames, "softmax", step)
        assert shown["stage"] == stage and shown["labels"] == toks
        np.testing.assert_allclose(as_scores(shown["scores"]), scaled, atol=TENSOR_ATOL)
        assert shown["row_max"] == pytest.approx(top, abs=TENSOR_ATOL)
        np.testing.assert_allclose(shown["exps"], e, atol=TENSOR_ATOL)
        assert shown["total"] == pytest.approx(sum(e), abs=TENSOR_ATOL)
        np.testing.assert_allclose(shown["weights"], after, atol=TENSOR_ATOL)
        np.testing.assert_allclose(shown["weights"], np.array(e) / sum(e), atol=TENSOR_ATOL)
    assert max(e) == 1.0 and sum(widget_data(frames, "softmax", 6)["weights"]) == pytest.approx(1.0, abs=1e-12)
    # the row is one object: out of the scaled map, through the process, into A
    parts = {name: tensor_at(frames, "softmax", step, name).parts for step, name in ((1, "scaled"), (7, "weights"))}
    assert all([(p.identity, p.rows) for p in ps] == [("softmax-row", [dog])] for ps in parts.values())
    assert {widget_data(frames, "softmax", step)["identity"] for step, _ in SOFTMAX_PROCESS} == {"softmax-row"}
    notes = [frames["softmax"][step - 1].notes[0].text for step, _ in SOFTMAX_PROCESS]
    assert "minus 2.70, the score of “old”" in notes[1] and "add up to 1.38" in notes[3]
    assert "“old” gets 0.72" in notes[4]


def test_the_mask_step_adds_the_matrix_m_to_the_map(deck, frames) -> None:
    """9/6–9/7: M (0 on and below the diagonal, −∞ above) beside the map of 9/4, then added: the
    result is the masked map the softmax slide starts from (12/1)."""
    n = len(deck.story.tokens)
    raw = as_scores(tensor_at(frames, "attention-map", 4, "map").values)
    keep = np.tril(np.ones((n, n), bool))
    for step, stage in ((6, "apart"), (7, "added")):
        shown = widget_data(frames, "attention-map", step)
        assert shown["stage"] == stage and shown["identity"] == "map"  # the map travels in, and on to 10/1
        np.testing.assert_allclose(shown["scores"], raw, atol=TENSOR_ATOL)
        m = as_scores(shown["mask"])
        assert np.all(m[keep] == 0.0) and np.all(np.isneginf(m[~keep]))
        result = as_scores(shown["result"])
        np.testing.assert_allclose(result[keep], raw[keep], atol=TENSOR_ATOL)
        assert np.all(np.isneginf(result[~keep]))
        np.testing.assert_allclose(result, as_scores(tensor_at(frames, "softmax", 1, "map").values), atol=TENSOR_ATOL)
    assert "21 of the 49 cells" in frames["attention-map"][5].notes[0].text


def test_map_growth_is_quadratic_and_ends_at_max_positions() -> None:
    sizes = growth_sizes(costs("deepseek-v3.2"), 7)
    assert [s["n"] for s in sizes[:3]] == [7, 14, 28]
    assert sizes[-1]["n"] == 163_840
    for a, b in itertools.pairwise(sizes[:-1]):  # the last step is capped at max positions
        assert b["cells"] == 4 * a["cells"]
    for s in sizes:
        assert s["cells"] == s["n"] ** 2 and s["bytes"] == 2 * s["n"] ** 2
        assert s["qk_flops"] == 2 * 128 * s["n"] ** 2  # one head's Q·Kᵀ, the counter's scope there
    small = growth_sizes(costs("deepseek-v3.2"), 3)[0]  # an independent count: 2 FLOPs per product
    assert small["qk_flops"] == sum(2 for _i in range(3) for _j in range(3) for _d in range(128))


def test_sum_of_heads_equals_concat_times_w_o(deck) -> None:
    check = heads_check(StoryContext(deck))
    assert check["max_abs_difference"] < 1e-9
    assert check["concat_shape"] == [7, check["heads"] * 128]


def test_the_story_model_is_chapter_ones_and_built_once_per_deck(deck, monkeypatch) -> None:
    """The generic build context holds nothing of chapter 1: chapter 1's builders are handed its own
    context, whose story model is built on first use, once for every step of a deck, and never for
    a deck of another chapter."""
    built = []
    real = chapter1.build_story
    monkeypatch.setattr(chapter1, "build_story", lambda *a, **k: built.append(a) or real(*a, **k))
    assert not hasattr(BuildContext, "story") and hasattr(StoryContext, "story")
    build_deck_frames(load_deck(data_dir("slides") / "attention-walkthrough.yaml"))
    assert built == []  # chapter 2's deck: its inputs are its own
    ctx = BuildContext(deck)
    steps = [(i, j) for i, sl in enumerate(deck.slides) for j, st in enumerate(sl.steps)
             if st.frame and st.frame.builder in ("story.query", "story.keys", "story.softmax")]
    frames = [build_frame(ctx, i, j) for i, j in steps]
    assert len(steps) >= 3 and len({f.slide for f in frames}) >= 3
    assert built == [(deck.story.tokens,)]  # once, for every step of the deck


def test_bat_has_the_same_row_in_both_sentences(frames) -> None:
    a, b = (next(t for t in frames["tokens-need-context"][2].tensors if t.name == n) for n in ("bat-a", "bat-b"))
    assert a.values == b.values
    assert "Identical rows" in frames["tokens-need-context"][2].notes[0].text


# ---- numbers that explain themselves (checker shared with chapter 2: tests/derivation_check.py) ----


def test_every_chapter1_matrix_explains_its_cells(frames) -> None:
    assert missing_derivations(frames) == set()
    assert sum(len(f.tensors) for fs in frames.values() for f in fs) >= 60


def test_every_chapter1_derivation_recomputes_its_cell(frames) -> None:
    assert check_all(frames) >= 1_500  # fewer, larger cells since the 16 px floor


def test_chapter1_derivations_cover_every_kind(frames) -> None:
    kinds = {t.derivation.kind for _, t in all_derivations(frames)}
    assert kinds == {"projection", "scores", "masked", "weights", "output", "copy", "sum"}  # scaled maps are masked


def tensor_at(frames, slide: str, step: int, name: str):
    return next(t for t in frames[slide][step - 1].tensors if t.name == name)


def cell_of(t, r: int, c: int):
    return next(cell for cell in t.derivation.cells if (cell.r, cell.c) == (r, c))


def test_chapter1_derivations_say_where_each_number_comes_from(deck, frames) -> None:
    toks = list(deck.story.tokens)
    dog = toks.index("dog")
    # inputs are looked up, weights are learned
    x = cell_of(tensor_at(frames, "every-token", 1, "X"), dog, 0)
    assert "embedding table" in x.parts[0].text and "“dog”" in x.parts[0].text
    w = cell_of(tensor_at(frames, "query-matrix", 1, "W_Q"), 0, 0)
    assert "learned weight" in w.parts[0].text and "random" in w.parts[0].text
    for name in ("bat-a", "bat-b"):
        assert "“bat”" in tensor_at(frames, "tokens-need-context", 3, name).derivation.cells[0].parts[0].text
    # q = x · W_Q: 7,168 products, three shown and the rest summed
    q = tensor_at(frames, "query-matrix", 2, "q-row").derivation.cells[0].parts[0]
    assert (q.op, len(q.terms), q.more) == ("sum", 3, 7_165)
    # o = a · W_O: 128 products
    o = tensor_at(frames, "enriched", 3, "o-row").derivation.cells[0].parts[0]
    assert (len(o.terms), o.more) == (3, 125)
    # Z = A·V: one product per key, all seven shown
    a = cell_of(tensor_at(frames, "softmax", 9, "Z"), dog, 0).parts[0]
    assert [t.label for t in a.terms] == toks and a.more == 0
    # the scaled map: dot product, × 1/√128, + mask
    scaled = cell_of(tensor_at(frames, "softmax", 1, "scaled"), 0, dog)
    assert [p.op for p in scaled.parts] == ["sum", "scale", "mask"] and scaled.value is None
    # row sums list the row's weights; the residual adds x and o
    row_sum = cell_of(tensor_at(frames, "softmax", 7, "sums"), dog, 0).parts[0]
    weights = tensor_at(frames, "softmax", 7, "weights")
    assert row_sum.op == "add" and [t.label for t in row_sum.terms] == toks
    assert [t.b for t in row_sum.terms] == pytest.approx(weights.values[dog], abs=1e-6)
    stream = cell_of(tensor_at(frames, "enriched", 5, "X2"), dog, 0)
    (part,) = stream.parts
    assert [t.label for t in part.terms] == ["x", "o"]
    xs, os_ = (tensor_at(frames, "enriched", 5, n).values[dog][0] for n in ("X", "O"))
    assert [t.b for t in part.terms] == pytest.approx([xs, os_], abs=1e-6)


def test_chapter1_payload_stays_small(deck, frames) -> None:
    total = sum(len(orjson.dumps([f.model_dump(mode="json") for f in fs])) for fs in frames.values())
    assert total < 3_000_000, total
