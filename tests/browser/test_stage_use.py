"""Every step of every deck at 1280 × 720 uses its stage as VISUAL.md §4 asks: the drawing reaches
down through at least 55 % of the band between the slide title and the caption (no step leaves the
lower half empty), no number comes within 4 CSS px of its cell's edge, and the caption is one line.

The band is measured on a screenshot of the stage, as an audience would see it: the share of the
band's pixel rows that hold any ink (a pixel away from the background colour). Stepping, without
motion, one screenshot per step."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from stage_probe import DECKS, deck_steps, open_at, step_forward, tracked_page

MIN_FILL = 0.55
PAD = 4  # CSS px between a number and its cell's edge

# The band between the visible slide title and the caption (stage coordinates on screen), the
# numbers that come within PAD of their cell, and the caption's line count.
BAND = r"""(pad) => {
  const stage = document.getElementById('stage'); const s = stage.getBoundingClientRect();
  const vis = (e) => e && e.checkVisibility && e.checkVisibility({checkOpacity: true})
    && e.getBoundingClientRect().height > 0;
  const title = [...stage.querySelectorAll('.slide.active .slide-title')].find(vis);
  const cap = document.getElementById('caption');
  const top = title ? title.getBoundingClientRect().bottom : s.top + 0.12 * s.height;
  const bottom = vis(cap) ? cap.getBoundingClientRect().top : s.bottom - 0.12 * s.height;
  const cells = [...stage.querySelectorAll('.slide.active svg rect')].filter(vis).map((r) => r.getBoundingClientRect())
    .filter((b) => b.width >= 10 && b.width <= 240 && b.height >= 10 && b.height <= 120);
  const touching = [];
  for (const t of stage.querySelectorAll('.slide.active svg text')) {
    if (!vis(t) || !/[0-9]/.test(t.textContent) || t.closest('.axis-label, .tensor-title')) continue;
    if (parseFloat(getComputedStyle(t).opacity) < 0.05) continue;
    const a = t.getBoundingClientRect(); const cx = (a.left + a.right) / 2, cy = (a.top + a.bottom) / 2;
    let best = null;
    for (const b of cells) if (b.left <= cx && cx <= b.right && b.top <= cy && cy <= b.bottom
      && b.width >= a.width * 0.6 && (!best || b.width * b.height < best.width * best.height)) best = b;
    if (best && (a.left - best.left < pad || best.right - a.right < pad)) touching.push(t.textContent.trim());
  }
  const scale = cap.getBoundingClientRect().height / cap.offsetHeight || 1;
  const lh = parseFloat(getComputedStyle(cap).lineHeight) * scale;
  const lines = Math.round(cap.getBoundingClientRect().height / lh);
  return {x: s.left, w: s.width, top: Math.max(top, s.top), bottom: Math.min(bottom, s.bottom), touching, lines};
}"""


def fill(page, band: dict) -> float:
    """The share of the band's pixel rows holding ink (anything 30 away from the background)."""
    png = page.screenshot(clip={"x": band["x"], "y": band["top"], "width": band["w"],
                                "height": max(1.0, band["bottom"] - band["top"])})
    a = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    flat = a.reshape(-1, 3)
    values, counts = np.unique(flat[:: max(1, len(flat) // 20000)], axis=0, return_counts=True)
    ink = np.abs(a - values[counts.argmax()]).sum(axis=2) > 30
    return float(ink.any(axis=1).mean())


@pytest.mark.parametrize("deck", DECKS)
def test_every_step_uses_its_stage(browser, server_url, deck) -> None:
    with tracked_page(browser) as page:
        open_at(page, server_url, deck, "#/1/1")
        steps = deck_steps(page)
        empty, touching, wrapped = {}, {}, {}
        for n, hash_ in enumerate(steps):
            if n:
                step_forward(page, hash_)
            band = page.evaluate(BAND, PAD)
            share = fill(page, band)
            if share < MIN_FILL:
                empty[hash_] = round(share, 2)
            if band["touching"]:
                touching[hash_] = band["touching"][:4]
            if band["lines"] > 1:
                wrapped[hash_] = band["lines"]
    assert empty == {}, f"steps whose drawing fills under {MIN_FILL:.0%} of the band: {empty}"
    assert touching == {}, f"numbers within {PAD} px of their cell's edge: {touching}"
    assert wrapped == {}, f"captions on more than one line: {wrapped}"
