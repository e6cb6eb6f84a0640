"""The real model's mechanism kinds in the browser (tests/browser/decks/mechanisms-model.yaml):
``rope``, ``gqa`` and ``sizes``. For each: what the DOM draws is the frame's numbers (which
tests/test_rope_gqa.py ties to the model file and the engine): the arrows point at the pair's own
direction turned by position × θᵢ, measured on screen; the wires join each query head to its group's
key/value head; the bars are as long as their share; the arrows turn on arrival; no text under the
type floor at 1280 × 720; no serious axe violation. Their motion's end state and a key mid-motion:
tests/browser/test_mechanisms_heads_browser.py, with the other mechanism kinds."""

from __future__ import annotations

import math

import pytest
from axe_probe import serious_violations
from panel_check import SMALL_TEXT
from widget_motion import STILL, WATCH, frame_data, open_at

DECK = "mechanisms-model"
# Each arrow's direction on screen, as drawn now (mid-motion too): from its dial's centre to the middle of its
# head (y up), in radians; and its data-angle.
ARROWS = """() => [...document.querySelectorAll('.slide.active .widget-rope .rope-arrow')].map((g) => {
  const o = g.parentNode.getScreenCTM(), tip = g.querySelector('path').getBoundingClientRect();
  const x = (tip.left + tip.right) / 2 - o.e, y = (tip.top + tip.bottom) / 2 - o.f;
  return { kind: g.classList.contains('key') ? 'key' : 'query', angle: Math.atan2(-y, x),
           data: Number(g.dataset.angle) };
})"""


@pytest.fixture(autouse=True)
def needs_the_model(real_model):
    """The deck is built from the real model."""


def same_direction(a: float, b: float) -> bool:
    return abs(math.remainder(a - b, 2 * math.pi)) < 0.02


@pytest.mark.parametrize("step", [1, 2, 3])
def test_the_arrows_point_at_position_times_theta(browser, demo_url, step) -> None:
    ctx, page, errors = open_at(browser, demo_url, DECK, f"#/2/{step}", "reduce")
    try:
        d = frame_data(page, demo_url, DECK, 2, step)
        drawn = page.evaluate(ARROWS)
        want = []
        for col in d["columns"]:  # the view draws column by column, pair by pair, q before k
            for i in range(len(d["pairs"])):
                want.append(math.atan2(col["q"][i][1], col["q"][i][0]) + col["q_angles"][i])
                if col.get("k") is not None:
                    want.append(math.atan2(col["k"][i][1], col["k"][i][0]) + col["k_angles"][i])
        assert len(drawn) == len(want) == len(d["columns"]) * len(d["pairs"]) * (1 if step == 1 else 2)
        for a, w in zip(drawn, want, strict=True):
            assert same_direction(a["angle"], w), (a, w)
            assert a["data"] == pytest.approx(w, abs=1e-9)
        if step == 1:
            assert [a["data"] for a in drawn[: len(d["pairs"])]] == [0] * len(d["pairs"])  # position 0: not turned
        else:
            scores = page.evaluate("() => [...document.querySelectorAll('.slide.active .rope-score')]"
                                   ".map((t) => Number(t.dataset.score))")
            assert scores == pytest.approx([c["score"] for c in d["columns"]], abs=1e-9)
        assert page.evaluate(f"({SMALL_TEXT})()") == []
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()


def test_the_arrows_turn_on_arrival(browser, demo_url) -> None:
    """Mid-motion, the fast pair's arrows are not yet where they end (they spin from angle 0)."""
    ctx, page, errors = open_at(browser, demo_url, DECK, "#/1/2", "no-preference")
    try:
        page.evaluate(STILL)
        page.evaluate(WATCH, ["rope", None])
        page.keyboard.press("ArrowRight")
        assert page.evaluate("window.__moved") > 0, "the arrows should turn"
        mid = page.evaluate(ARROWS)  # while they turn
        page.evaluate(STILL)
        end = page.evaluate(ARROWS)
        assert any(not same_direction(a["angle"], b["angle"]) for a, b in zip(mid, end, strict=True))
        assert all(same_direction(b["angle"], b["data"]) for b in end)
        assert errors == []
    finally:
        ctx.close()


def test_the_wires_join_each_query_head_to_its_group(browser, demo_url) -> None:
    ctx, page, errors = open_at(browser, demo_url, DECK, "#/3/3", "reduce")
    try:
        d = frame_data(page, demo_url, DECK, 3, 3)
        wires = page.evaluate("""() => [...document.querySelectorAll('.slide.active .gqa-wire')].map((p) => {
          const n = p.getTotalLength(), a = p.getPointAtLength(0), b = p.getPointAtLength(n);
          return [a.x, b.x]; })""")
        boxes = page.evaluate("""() => [...document.querySelectorAll('.slide.active .gqa-head')].map((r) =>
          [r.classList[1], Number(r.getAttribute('x')), Number(r.getAttribute('width'))])""")
        queries = [b for b in boxes if b[0] == "query"]
        keys = [b for b in boxes if b[0] == "key"]
        assert len(wires) == len(queries) == d["heads"] == 9 and len(keys) == d["kv_heads"] == 3
        for h, (start, end) in enumerate(wires):
            x, w = queries[h][1], queries[h][2]
            assert start == pytest.approx(x + w / 2)
            key_x, key_w = keys[d["groups"][h]][1], keys[d["groups"][h]][2]
            assert end == pytest.approx(key_x + key_w)  # the seam between its group's K and V
        bars = page.evaluate("() => [...document.querySelectorAll('.slide.active .gqa-bar')]"
                             ".map((r) => [Number(r.getAttribute('width')), Number(r.dataset.share)])")
        assert [s for _, s in bars] == pytest.approx([b["value"] for b in d["bars"]])
        assert bars[1][0] / bars[0][0] == pytest.approx(d["bars"][1]["value"])
        text = page.locator(".slide.active .widget-gqa").text_content()
        assert all(b["text"] in text for b in d["bars"])
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("step", [1, 2])
def test_the_size_blocks_are_the_files_counts(browser, demo_url, step) -> None:
    ctx, page, errors = open_at(browser, demo_url, DECK, f"#/1/{step}", "reduce")
    try:
        d = frame_data(page, demo_url, DECK, 1, step)
        bars = page.evaluate("""() => [...document.querySelectorAll('.slide.active .sizes-bar')].map((g) => {
          const rs = [...g.querySelectorAll('rect')], x = (r, k) => Number(r.getAttribute(k));
          return { n: rs.length, w: rs.reduce((s, r) => Math.max(s, x(r, 'x') + x(r, 'width')), 0) - x(rs[0], 'x') };
        })""")
        want = [b for row in d["rows"] for b in row["bars"]]
        assert len(bars) == len(want)
        for drawn, b in zip(bars, want, strict=True):
            assert drawn["n"] in (1, b["count"])  # one block per head or layer, or one bar when they are too thin
        by_row = {row["title"]: k for k, row in enumerate(d["rows"])}
        per = len(d["models"])
        heads, width = bars[by_row["query heads × head width d_k"] * per], bars[by_row["model width d"] * per]
        assert heads["n"] == d["rows"][0]["bars"][0]["count"] or step == 2
        if step == 1:  # one scale for the numbers: 9 heads × 64 are as long as the width 576
            assert heads["w"] == pytest.approx(width["w"], abs=4)
        text = page.locator(".slide.active .widget-sizes").text_content()
        assert all(b["text"] in text for b in want)
        assert page.evaluate(f"({SMALL_TEXT})()") == []
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()
