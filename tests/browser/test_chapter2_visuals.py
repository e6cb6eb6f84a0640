"""Chapter 2's visuals in real Chromium: probability bars on a 0–1 track, both histograms on one
axis, FlashAttention's causal tiles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panel_check import num

DECK = "attention-walkthrough"


def goto(page, slide_id: str, step: int) -> None:
    number = page.evaluate(f"window.attentionTalk.player.slides.findIndex(s => s.id === '{slide_id}') + 1")
    page.evaluate(f"location.hash = '#/{number}/{step}'")
    page.wait_for_function(f"() => document.querySelector('#player').dataset.drawn === '{slide_id}/{step}'",
                           timeout=60_000)  # the stage holds the step's frame (data-step comes first)
    page.evaluate(SETTLED)


# Resolves once nothing animates on the page any more (10 s at most).
SETTLED = """async () => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (moving() && performance.now() - t0 < 10000) await new Promise((r) => requestAnimationFrame(r));
}"""


def test_probability_bars_fill_their_share_of_one(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "words-to-numbers", 6)  # the weights of “bank” in the three moves (the second bars: A)
    rows = page.locator(".slide.active .widget-weight-bars").nth(1).locator(".wb-row")
    rows.first.wait_for()
    for k in range(rows.count()):
        row = rows.nth(k)
        share = row.locator(".wb-fill").bounding_box()["width"] / row.locator(".wb-track").bounding_box()["width"]
        assert share == pytest.approx(num(row.locator(".wb-value").inner_text()), abs=0.01)
    watch.assert_clean()


def test_raw_and_scaled_histograms_share_one_axis(open_talk, watch) -> None:
    """5/4, the ``scaling`` kind: both histograms on one axis (the same bins), the scaled one far narrower."""
    page = open_talk(DECK)
    goto(page, "the-equation", 4)
    page.locator(".slide.active .mech-scaling .mech-scaled .mech-bar").first.wait_for(state="attached")
    page.wait_for_timeout(1200)  # the squeeze has landed
    spans = page.evaluate("""() => ['.mech-raw', '.mech-scaled'].map(sel => {
        const bars = [...document.querySelectorAll(`.slide.active .mech-scaling ${sel} .mech-bar`)]
          .map(r => r.getBoundingClientRect()).filter(r => r.height > 0.5);
        return {lo: Math.min(...bars.map(r => r.left)), hi: Math.max(...bars.map(r => r.right))}; })""")
    axes = page.evaluate("""() => [...document.querySelectorAll('.slide.active .mech-scaling .mech-hist > .mech-axis')]
        .map(l => { const r = l.getBoundingClientRect(); return [r.left, r.right]; })""")
    raw, scaled = spans
    assert len(axes) == 2 and axes[0] == pytest.approx(axes[1], abs=1)
    assert (scaled["hi"] - scaled["lo"]) < 0.3 * (raw["hi"] - raw["lo"])  # the narrowing is visible
    watch.assert_clean()


def test_flash_attention_skips_the_future_tile(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto(page, "the-cost", 5)  # tile 3: the skipped tile stands hatched beside the computed ones
    tile = page.locator(".slide.active .flash-skip")
    tile.wait_for()
    assert tile.count() == 1 and page.evaluate(
        "() => getComputedStyle(document.querySelector('.slide.active .flash-skip')).opacity") == "1"
    assert tile.locator(".mech-hatch").count() == 1 and tile.locator(".flash-num").count() == 0  # no scores
    watch.assert_clean()


def _segment_distance(p, q, a, b) -> float:
    """Shortest distance between segments pq and ab (0 when they cross)."""
    def cross(o, u, v):
        return (u[0] - o[0]) * (v[1] - o[1]) - (u[1] - o[1]) * (v[0] - o[0])
    if cross(p, q, a) * cross(p, q, b) < 0 and cross(a, b, p) * cross(a, b, q) < 0:
        return 0.0
    def point(o, u, v):
        dx, dy = v[0] - u[0], v[1] - u[1]
        t = max(0.0, min(1.0, ((o[0] - u[0]) * dx + (o[1] - u[1]) * dy) / (dx * dx + dy * dy or 1)))
        return math.hypot(o[0] - u[0] - t * dx, o[1] - u[1] - t * dy)
    return min(point(p, a, b), point(q, a, b), point(a, p, q), point(b, p, q))


def _gap(poly_a, poly_b) -> float:
    """Distance between two convex polygons (0 when they touch or one holds the other's corner)."""
    edges = lambda poly: list(zip(poly, poly[1:] + poly[:1], strict=True))  # noqa: E731
    return min(_segment_distance(p, q, a, b) for p, q in edges(poly_a) for a, b in edges(poly_b))


def test_rnn_arcs_are_as_wide_as_their_weights_and_never_overlap(open_talk, watch) -> None:
    """3/3: one arc per encoder state, as wide as ARC_MAX × its weight (the frame's softmax); no two
    arcs, and no arc and weight label, come within 4 units of each other. The polygons are read from
    what the browser drew: each arc's corners through its own transform (getCTM), in widget units."""
    page = open_talk(DECK)
    goto(page, "before-attention", 3)
    page.locator(".slide.active .rnn .rnn-arc").first.wait_for()
    page.wait_for_timeout(800)  # the arcs have grown
    drawn = page.evaluate("""() => {
        const s = document.querySelector('.slide.active svg.rnn'), inv = s.getScreenCTM().inverse();
        const arcs = [...s.querySelectorAll('.rnn-arc')].map(r => {
          const m = inv.multiply(r.getScreenCTM()), at = (x, y) => new DOMPoint(x, y).matrixTransform(m);
          const c = [at(0, -0.5), at(1, -0.5), at(1, 0.5), at(0, 0.5)].map(p => [p.x, p.y]);
          return {poly: c, width: Math.hypot(c[3][0] - c[0][0], c[3][1] - c[0][1]),
                  weight: Number(r.parentNode.dataset.weight)}; });
        const boxes = [...s.querySelectorAll('text')].map(t => {
          const b = t.getBBox(); return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
                                         [b.x, b.y + b.height]]; });
        return {arcs, boxes, max: 40}; }""")
    frames = page.evaluate("""async () => (await (await fetch(
        '/api/decks/attention-walkthrough/slides/before-attention/frames')).json()).frames[2]
        .widgets.find(w => w.type === 'rnn').data.weights""")
    arcs = drawn["arcs"]
    assert len(arcs) == len(frames) == 4
    for arc, w in zip(arcs, frames, strict=True):
        assert arc["weight"] == pytest.approx(w, abs=1e-12)
        assert arc["width"] == pytest.approx(max(drawn["max"] * w, 1), abs=0.05)  # width = ARC_MAX · α
    assert arcs[int(np.argmax(frames))]["width"] == max(a["width"] for a in arcs)
    for i, a in enumerate(arcs):
        for b in arcs[i + 1:]:
            assert _gap(a["poly"], b["poly"]) >= 4
        for box in drawn["boxes"]:
            assert _gap(a["poly"], box) >= 4
    watch.assert_clean()
