"""Chapter 3 ("What real heads do") in real Chromium, on the real model: every step in order (the
caption follows, nothing leaves the 16:9 stage, no console error), its layout at the projector's type
sizes (no text runs into another, no note cut off, nothing jumps within a slide), derivation panels on
the real map and the score grids, and the lab link."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from panel_check import check_cell, goto_slide, walk_captions
from stage_probe import SEEN_TEXTS, deck_steps, open_at, step_forward, tracked_page

DECK = "real-heads"


@pytest.fixture(autouse=True)
def needs_the_model(real_model):
    """The deck is built from the real model (CI installs it; elsewhere a skip)."""


def test_walk_every_step(open_talk, watch, server_url) -> None:
    page = open_talk(DECK)
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    captions = [c for s in manifest["slides"] for c in s["captions"]]
    assert 25 <= len(captions) <= 35
    walk_captions(page, captions)
    watch.assert_clean()


@pytest.mark.parametrize("slide, step, tensor", [
    ("real-map", 1, "map"), ("real-map", 3, "map"), ("real-map", 4, "row"), ("real-map", 5, "map"),
    ("jobs", 1, "grid"), ("jobs", 6, "example"), ("real-thing", 1, "realmap"),
])
def test_cells_explain_themselves(talk, slide, step, tensor) -> None:
    page = talk.open(DECK)
    goto_slide(page, slide, step)
    cells = page.locator(f".slide.active [data-tensor='{tensor}'] .cell.derivable")
    cells.first.wait_for()
    for k in (0, cells.count() - 1):
        cells.nth(k).click()
        check_cell(page, cells.nth(k))
    talk.assert_clean()


def test_the_lab_link_carries_the_sentence(talk) -> None:
    page = talk.open(DECK)
    goto_slide(page, "same-different", 3)
    link = page.locator(".slide.active .widget-link a")
    link.wait_for()
    href = link.get_attribute("href")
    query = parse_qs(urlsplit(href).query)
    assert urlsplit(href).path == "/lab" and query["source"] == ["model"]
    assert query["text"] == ["The cat sat on the mat because the cat was tired"]
    assert link.inner_text().strip("“”") == query["text"][0]
    talk.assert_clean()


# On the active slide at 1280 × 720: texts of different nodes that meet (closer than 4 CSS px side by
# side while sharing a line: a column label running into the next, a title under a note), notes and
# cards whose words do not fit their box, and where each note and tensor stands (stage units).
LAID_OUT = rf"""() => {{
  const stage = document.getElementById('stage').getBoundingClientRect(), k = stage.width / 1600;
  const lines = ({SEEN_TEXTS})().filter(([, el]) => el.closest('.slide.active')).flatMap(([n]) => {{
    const r = document.createRange(); r.selectNodeContents(n);
    return [...r.getClientRects()].filter((b) => b.width >= 1).map((b) => [n, b]); }});
  const meet = [];
  for (let i = 0; i < lines.length; i++) for (let j = i + 1; j < lines.length; j++) {{
    const [na, a] = lines[i], [nb, b] = lines[j];
    if (na === nb) continue;
    const shared = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    const gap = Math.max(a.left, b.left) - Math.min(a.right, b.right);
    if (shared > 0.3 * Math.min(a.height, b.height) && gap < 4) {{
      meet.push([na.textContent.trim(), nb.textContent.trim()]); }}
  }}
  const slide = document.querySelector('.slide.active');
  const cut = [...slide.querySelectorAll('.note, .card')].filter((e) => e.scrollHeight > e.clientHeight + 1)
    .map((e) => e.textContent.trim().slice(0, 40));
  const at = (e) => {{ const b = e.getBoundingClientRect();
    return [Math.round((b.left - stage.left) / k), Math.round((b.top - stage.top) / k)]; }};
  const places = {{}};
  for (const e of slide.querySelectorAll('.notes-layer > .note')) places[`note ${{e.dataset.note}}`] = at(e);
  for (const e of slide.querySelectorAll('[data-tensor] .tensor-title')) {{
    places[`tensor ${{e.closest('[data-tensor]').dataset.tensor}}`] = at(e); }}
  return {{meet, cut, places, slide: slide.dataset.slideId}};
}}"""


def test_every_step_is_laid_out_cleanly(browser, server_url) -> None:
    """Stepping through the deck at 1280 × 720 with the projector's type sizes: no text runs into
    another, every note and card shows all its words, and a note or a matrix that stays on a slide
    keeps its place from step to step."""
    with tracked_page(browser) as page:
        open_at(page, server_url, DECK, "#/1/1")
        meet, cut, moved, seen = {}, {}, [], {}
        for n, hash_ in enumerate(deck_steps(page)):
            if n:
                step_forward(page, hash_)
            step = page.evaluate(LAID_OUT)
            if step["meet"]:
                meet[hash_] = step["meet"][:4]
            if step["cut"]:
                cut[hash_] = step["cut"]
            for what, place in step["places"].items():
                before = seen.get((step["slide"], what))
                if before is not None and before != place:
                    moved.append((hash_, what, before, place))
                seen[(step["slide"], what)] = place
    assert meet == {}, f"texts that run into each other: {meet}"
    assert cut == {}, f"notes or cards cut off by their box: {cut}"
    assert moved == [], f"notes or matrices that jump within their slide: {moved}"
