"""The mechanism widgets in a real browser (issue 30), on the demo deck tests/browser/decks/
mechanisms-demo.yaml: softmax as a process, the mask added, scaling by √d_k.

- the numbers on screen (read from the DOM) are the engine's, stage by stage;
- the end state after the motion equals the end state with reduced motion (and loading the step by
  its URL), and a key pressed mid-motion lands on the next step's end state;
- no text under the floor at 1280 × 720 (panel_check.SMALL_TEXT); axe finds nothing serious."""

from __future__ import annotations

import numpy as np
import pytest
from axe_probe import serious_violations
from panel_check import SMALL_TEXT
from stage_probe import DRAWN, open_at, step_forward, tracked_page
from widget_motion import RECORD

from attention_talk.engine import softmax
from attention_talk.formatting import number
from attention_talk.frames.step_by_step.inputs import build_story

DECK = "mechanisms-demo"
SENTENCE = ("the", "old", "dog", "sleeps", "by", "the", "fire")
FOCUS = SENTENCE.index("dog")
SLIDES = {"softmax": (1, 5), "mask": (2, 3), "scaling": (3, 2), "padded": (4, 1)}  # slide number, steps

# The widget's numbers as the audience reads them: the focusable ones (a number fading out is not).
NUMBERS = """(sel) => [...document.querySelectorAll(`.slide.active ${sel} .mech-num:not([aria-hidden])`)]
  .filter((t) => !t.closest('[aria-hidden]')).map((t) => t.textContent)"""

# The drawing of the active slide's widgets, as markup: what the end state is made of.
DRAWING = """() => document.querySelector('.slide.active .widget-layer').innerHTML"""

SETTLED = """async () => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (moving() && performance.now() - t0 < 8000) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


@pytest.fixture(scope="module")
def att():
    return build_story(SENTENCE, seed=7).attention(causal=True)


def hashes(slide: str) -> list[str]:
    at, steps = SLIDES[slide]
    return [f"#/{at}/{k}" for k in range(1, steps + 1)]


@pytest.fixture(scope="module")
def still(browser, demo_url):
    with tracked_page(browser) as page:
        open_at(page, demo_url, DECK, "#/1/1")
        yield page



STARTED = """() => window.__started.filter(([a, el]) => el.closest('.widget-layer')).length"""


@pytest.fixture(scope="module")
def moving(browser):
    with tracked_page(browser, motion="no-preference") as page:
        page.add_init_script(RECORD)
        yield page


def expected_softmax(att, stage: str) -> list[str]:
    row = att.masked[FOCUS]
    ok = np.isfinite(row)
    m = row[ok].max()
    values = {"scores": row, "shift": row - m, "exp": np.exp(row - m), "sum": np.exp(row - m),
              "divide": softmax(row)}[stage]
    late = stage in ("exp", "sum", "divide")
    return [number(float(v), 2) if keep else ("0" if late else "−∞") for v, keep in zip(values, ok, strict=True)]


def test_the_softmax_numbers_are_the_engines_at_every_stage(still, demo_url, att) -> None:
    for hash_, stage in zip(hashes("softmax"), ["scores", "shift", "exp", "sum", "divide"], strict=True):
        open_at(still, demo_url, DECK, hash_)
        assert still.evaluate(NUMBERS, ".widget-softmax") == expected_softmax(att, stage), hash_
    stack = still.evaluate("() => [...document.querySelectorAll('.slide.active .widget-softmax text')]"
                           ".map((t) => t.textContent).filter((t) => t.startsWith('Σ'))")
    assert number(float(softmax(att.masked[FOCUS]).sum()), 3) == "1.000" and "Σ = 1.000" in stack


def test_the_mask_numbers_are_scores_plus_the_engines_mask(still, demo_url, att) -> None:
    n = len(SENTENCE)
    scores = [number(float(v), 1) for v in att.scaled.ravel()]
    mask = ["−∞" if np.isneginf(v) else "0" for v in att.mask.ravel()]
    result = ["−∞" if np.isneginf(v) else number(float(v), 1) for v in att.masked.ravel()]
    first, apart, added = hashes("mask")
    open_at(still, demo_url, DECK, first)
    assert still.evaluate(NUMBERS, ".widget-mask .mech-scores") == scores
    open_at(still, demo_url, DECK, apart)
    assert still.evaluate(NUMBERS, ".widget-mask .mech-mask") == mask
    open_at(still, demo_url, DECK, added)
    assert still.evaluate(NUMBERS, ".widget-mask .mech-scores") == result
    hatched = still.evaluate("""() => [...document.querySelectorAll('.slide.active .mech-scores .mech-cell-g')]
      .map((g) => Boolean(g.querySelector('.mech-hatch')))""")
    assert hatched == np.isneginf(att.mask).ravel().tolist() and sum(hatched) == n * (n - 1) // 2


def test_the_scaling_weights_flatten_as_the_engine_says(still, demo_url, att) -> None:
    raw = softmax(att.scores[FOCUS] + att.mask[FOCUS])
    blocked = np.isneginf(att.mask[FOCUS])
    for hash_, weights in zip(hashes("scaling"), [raw, att.weights[FOCUS]], strict=True):
        open_at(still, demo_url, DECK, hash_)
        assert still.evaluate(NUMBERS, ".widget-scaling") == [
            "0" if b else number(float(w), 2) for w, b in zip(weights, blocked, strict=True)], hash_
    bars = still.evaluate("() => document.querySelectorAll('.slide.active .mech-scaled .mech-bar').length")
    assert bars == len(np.histogram(att.scaled.ravel(), bins=30)[0])  # one bar per bin of the shared edges


@pytest.mark.parametrize("slide", ["softmax", "mask", "scaling"])
def test_the_end_state_after_the_motion_is_the_reduced_motion_one(still, moving, demo_url, slide) -> None:
    steps = hashes(slide)
    open_at(moving, demo_url, DECK, steps[0])
    moving.evaluate(SETTLED)
    for hash_ in steps[1:]:
        moving.evaluate("() => { window.__started = []; }")
        step_forward(moving, hash_)
        assert moving.evaluate(STARTED) > 0, f"{hash_}: nothing moved"
        moving.evaluate(SETTLED)
        open_at(still, demo_url, DECK, hash_)
        assert moving.evaluate(DRAWING) == still.evaluate(DRAWING), hash_


def test_a_key_mid_motion_lands_on_the_next_steps_end_state(still, moving, demo_url) -> None:
    """Two keys back to back: the first step's motion (600 ms phases) is still running when the second
    key comes; the second finishes it (views/motion.js settle) and the stage ends as that step loaded
    by its URL draws it."""
    for first, then in (("#/1/2", "#/1/4"), ("#/1/3", "#/1/5"), ("#/2/1", "#/2/3")):
        open_at(moving, demo_url, DECK, first)
        moving.evaluate(SETTLED)
        moving.evaluate("() => { window.__started = []; }")
        moving.keyboard.press("ArrowRight")
        started = moving.evaluate(STARTED)
        moving.keyboard.press("ArrowRight")
        moving.evaluate(DRAWN, then)
        assert started > 0, f"the step after {first} started no motion"
        unfinished = moving.evaluate(f"() => window.__started.slice(0, {started})"
                                     ".filter(([a]) => a.playState !== 'finished').length")
        assert unfinished == 0, first
        moving.evaluate(SETTLED)
        open_at(still, demo_url, DECK, then)
        assert moving.evaluate(DRAWING) == still.evaluate(DRAWING), then


def test_no_text_under_the_floor_and_nothing_serious_for_axe(still, demo_url) -> None:
    small, found = {}, {}
    for slide in SLIDES:
        for hash_ in hashes(slide):
            open_at(still, demo_url, DECK, hash_)
            if bad := still.evaluate(SMALL_TEXT):
                small[hash_] = bad
        found[slide] = serious_violations(still)
    assert small == {}
    assert found == {slide: [] for slide in SLIDES}
