"""Chapter 2's visuals in real Chromium: probability bars on a 0–1 track, both histograms on one
axis, the head picker switching maps, FlashAttention's causal tiles."""

from __future__ import annotations

import pytest
from panel_check import num

DECK = "attention-walkthrough"


def goto(page, slide_id: str, step: int) -> None:
    number = page.evaluate(f"window.attentionTalk.player.slides.findIndex(s => s.id === '{slide_id}') + 1")
    page.evaluate(f"location.hash = '#/{number}/{step}'")
    page.wait_for_function(f"document.querySelector('#player').dataset.slide === '{slide_id}' && "
                           f"document.querySelector('#player').dataset.step === '{step}'")


def test_probability_bars_fill_their_share_of_one(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "words-to-numbers", 5)
    rows = page.locator(".slide.active .widget-weight-bars .wb-row")
    rows.first.wait_for()
    for k in range(rows.count()):
        row = rows.nth(k)
        share = row.locator(".wb-fill").bounding_box()["width"] / row.locator(".wb-track").bounding_box()["width"]
        assert share == pytest.approx(num(row.locator(".wb-value").inner_text()), abs=0.01)
    watch.assert_clean()


def test_raw_and_scaled_histograms_share_one_axis(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "the-equation", 4)
    page.locator(".slide.active .histogram g.kind-weights").wait_for()
    spans = page.evaluate("""() => [...document.querySelectorAll('.slide.active .histogram g')].map(g => {
        const xs = [...g.querySelectorAll('.hist-bar')].map(r => r.getBoundingClientRect());
        const axis = g.querySelector('.hist-axis').getBoundingClientRect();
        return {lo: Math.min(...xs.map(r => r.left)), hi: Math.max(...xs.map(r => r.right)),
                a0: axis.left, a1: axis.right}; })""")
    raw, scaled = spans
    assert raw["a0"] == pytest.approx(scaled["a0"], abs=1) and raw["a1"] == pytest.approx(scaled["a1"], abs=1)
    assert (scaled["hi"] - scaled["lo"]) < 0.3 * (raw["hi"] - raw["lo"])  # the narrowing is visible
    watch.assert_clean()


def test_head_picker_switches_between_the_heads_maps(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "multi-head", 7)
    root = page.locator(".slide.active .widget-head-picker")
    root.locator(".head-map").wait_for()
    bank_row = lambda: [num(t) for t in root.locator(".head-map text").evaluate_all(  # noqa: E731
        "els => els.map(e => e.textContent)")[-6:]]
    first = bank_row()
    assert max(first) == first[4]  # head 1: "bank" reads the word before it, "old"
    root.locator(".picker-token").nth(1).click()
    second = bank_row()
    assert max(second) == second[1]  # head 2: "bank" reaches back to "river"
    assert root.locator(".picker-token").nth(1).get_attribute("aria-pressed") == "true"
    watch.assert_clean()


def test_flash_attention_skips_the_future_tile(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "the-cost", 6)
    tile = page.locator(".slide.active .flash-skip")
    tile.wait_for()
    assert tile.count() == 1 and "current" in tile.get_attribute("class")
    assert tile.locator(".mech-hatch").count() == 1 and tile.locator(".flash-num").count() == 0  # no scores
    watch.assert_clean()
