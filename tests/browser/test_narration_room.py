"""With the narration on (T), the caption bar's words never cover the drawing: on every step of
both decks no line of the caption or narration intersects a matrix, widget or note. The drawing
shrinks towards the top (views/room.js) instead, its layers staying inside the stage."""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from stage_probe import DECKS, deck_steps, open_at, step_forward, tracked_page

COVERED = """() => {
  const lines = [];
  for (const p of document.querySelectorAll('#caption, #narration:not(.sr-only)')) {
    const r = document.createRange(); r.selectNodeContents(p);
    lines.push(...[...r.getClientRects()].filter((b) => b.width > 2 && b.height > 2));
  }
  const boxes = [...document.querySelectorAll(
    '.slide.active .canvas > .tensor, .slide.active .widget, .slide.active .note')];
  const hits = [];
  for (const el of boxes) {
    const b = el.getBoundingClientRect();
    if (b.width < 2 || b.height < 2) continue;
    for (const l of lines) {
      const w = Math.min(b.right, l.right) - Math.max(b.left, l.left);
      const h = Math.min(b.bottom, l.bottom) - Math.max(b.top, l.top);
      if (w > 2 && h > 2) { hits.push(el.dataset.tensor || el.dataset.widget || el.dataset.note); break; }
    }
  }
  const stage = document.querySelector('#stage').getBoundingClientRect();
  const layers = '.slide.active .canvas, .slide.active .widget-layer, .slide.active .notes-layer';
  for (const el of document.querySelectorAll(layers)) {
    const b = el.getBoundingClientRect();
    if (b.left < stage.left - 1 || b.top < stage.top - 1 || b.right > stage.right + 1 || b.bottom > stage.bottom + 1)
      hits.push('outside the stage: ' + el.getAttribute('class'));
  }
  return hits;
}"""


def covered_once_settled(page) -> list[str]:
    """What the words cover once the layout has settled: the room is made when the caption bar's
    new size is observed, a frame or more after the key on a busy machine; a step whose words still
    cover the drawing after a generous wait does cover it."""
    try:
        page.wait_for_function(f"() => ({COVERED})().length === 0", timeout=5_000)
        return []
    except PlaywrightTimeout:
        return page.evaluate(COVERED)


@pytest.fixture
def still_page(browser):
    with tracked_page(browser) as page:
        yield page


@pytest.mark.parametrize("deck", DECKS)
def test_narration_never_covers_the_drawing(still_page, server_url, deck) -> None:
    page = still_page
    open_at(page, server_url, deck, "#/1/1")
    page.keyboard.press("t")
    page.wait_for_selector("#player.narration-on", state="attached")
    covered = {}
    for n, hash_ in enumerate(deck_steps(page)):
        if n:
            step_forward(page, hash_)
        hits = covered_once_settled(page)
        if hits:
            covered[hash_] = hits
    assert covered == {}
