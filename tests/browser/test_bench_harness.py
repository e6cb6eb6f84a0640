"""The key-to-paint harness of ``make bench`` (benchmarks/keypaint.py) still measures what it says,
on the player and on the reveal.js anchor: one sample a press, its marks in the order they happen
(keydown ≤ the step drawn ≤ the frame begins ≤ painted), the player's URL written with each step
except in the diagnostic run, and the anchor writing its URL as its mode says. No time is asserted:
the bench prints them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import keypaint
import reveal_anchor

PRESSES = 6


@pytest.fixture
def few_presses(monkeypatch):
    monkeypatch.setattr(keypaint, "PRESSES", PRESSES)


def assert_ordered(samples: list[dict]) -> None:
    assert len(samples) == PRESSES
    for s in samples:
        assert 0 <= s["drawn"] <= s["frame"] <= s["painted"], s


@pytest.mark.parametrize("url, hold, pace", [(True, True, 0), (True, False, 0), (False, True, 0), (True, True, 30)],
                         ids=["as-served", "released-at-once", "url-stubbed", "presenter-pace"])
def test_the_harness_samples_every_press_of_the_player(browser, server_url, few_presses, monkeypatch,
                                                       url, hold, pace) -> None:
    monkeypatch.setattr(keypaint, "CALM_PRESSES", PRESSES)
    context, page = keypaint.open_player(browser, server_url, url)
    try:
        total = page.evaluate(keypaint.TOTAL)
        samples = keypaint.run(page, total, "ours", hold, pace)
        assert_ordered(samples)
        state = page.evaluate("(({ slide, step }) => `#/${slide}/${step}`)(window.attentionTalk.player.state)")
        assert state != "#/1/1"  # the presses moved the player
        # As served, the URL follows every step; stubbed (the diagnostic row), it never moves.
        assert page.evaluate("location.hash") == (state if url else "")
    finally:
        context.close()


@pytest.mark.parametrize("mode", ["hash", "history"])
def test_the_harness_samples_every_press_of_the_reveal_anchor(browser, few_presses, mode) -> None:
    assert reveal_anchor.available(), "reveal.js is an npm dev dependency: run `npm ci`"
    with reveal_anchor.anchor_deck(mode) as (url, total):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(url)
            page.wait_for_function("() => window.revealReady === true")
            samples = keypaint.run(page, total, "reveal")
            assert_ordered(samples)
            h, v, f = (page.evaluate(f"Reveal.getIndices().{k}") for k in "hvf")
            # 6 presses: the first slide's 3 fragments, then the second slide and 2 of its fragments
            assert (h, v, f) == (1, 0, 1)
            if mode == "history":  # a URL on every step, as the player writes its own
                assert page.evaluate("location.hash") == "#/1/0/1"
        finally:
            page.close()


def test_the_drawing_stub_skips_the_stage_and_still_samples(browser, server_url, few_presses) -> None:
    """The presenter-pace diagnostic row: the stage draws nothing, yet every press gives a sample
    and the player (and its URL) still moves."""
    context, page = keypaint.open_player(browser, server_url)
    try:
        page.wait_for_load_state("networkidle")
        page.evaluate(keypaint.NO_DRAWING)
        drawings = "[...document.querySelectorAll('#stage .slide .canvas')].map((c) => c.innerHTML)"
        drawn = page.evaluate(drawings)
        total = page.evaluate(keypaint.TOTAL)
        assert_ordered(keypaint.run(page, total, "ours"))
        assert page.evaluate("location.hash") != "#/1/1"
        assert page.evaluate(drawings) == drawn  # no slide's drawing changed
    finally:
        context.close()


def test_the_frame_time_harness_samples_each_step_and_tells_slide_changes(browser, server_url) -> None:
    """benchmarks/frames.py: one sample a key, its frames' deltas all positive, the change of slide told
    from a step within one (chapter 1 from its start: 1/1 → 2/1 → 2/2 → 3/1), and a table row of them."""
    import frames

    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        samples = frames.walk(page, server_url, "attention-step-by-step", limit=3)
    finally:
        page.close()
    assert [s["step"] for s in samples] == ["#/2/1", "#/2/2", "#/3/1"]
    assert [s["slide"] for s in samples] == [True, False, True]
    for s in samples:
        assert len(s["deltas"]) >= 10 and min(s["deltas"]) > 0, s["step"]
    line, _ = frames.row("chapter 1, slide changes", [s for s in samples if s["slide"]])
    assert line.startswith("chapter 1, slide changes") and " % " in line
