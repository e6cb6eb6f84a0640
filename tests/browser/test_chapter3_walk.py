"""Chapter 3 ("What real heads do") in real Chromium, on the real model: every step in order (the
caption follows, nothing leaves the 16:9 stage, no console error), derivation panels on the real map
and the score grids, and the lab link."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from panel_check import DRAWN, OUTSIDE_STAGE, SMALL_TEXT, check_cell

DECK = "real-heads"

STEP_DRAWN = f"""async () => {{
  await ({DRAWN})();
  return [document.querySelector('#caption').innerText, ({OUTSIDE_STAGE})(), ({SMALL_TEXT})()];
}}"""


@pytest.fixture(autouse=True)
def needs_the_model(real_model):
    """The deck is built from the real model (CI installs it; elsewhere a skip)."""


def goto_slide(page, slide_id: str, step: int = 1) -> None:
    number = page.evaluate(f"window.attentionTalk.player.slides.findIndex(s => s.id === '{slide_id}') + 1")
    page.evaluate(f"location.hash = '#/{number}/{step}'")
    page.wait_for_function(f"document.querySelector('#player').dataset.slide === '{slide_id}' && "
                           f"document.querySelector('#player').dataset.step === '{step}'")


def test_walk_every_step(open_talk, watch, server_url) -> None:
    page = open_talk(DECK)
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    captions = [c for s in manifest["slides"] for c in s["captions"]]
    assert 25 <= len(captions) <= 35
    for i, caption in enumerate(captions):
        shown, outside, small = page.evaluate(STEP_DRAWN)
        assert shown == caption, i
        assert outside == [], (i, caption)
        assert small == [], f"text under 16 px at 1280×720 on step {i + 1} ({caption}): {small}"
        if i < len(captions) - 1:
            page.keyboard.press("ArrowRight")
    watch.assert_clean()


@pytest.mark.parametrize("slide, step, tensor", [
    ("real-map", 1, "map"), ("real-map", 3, "map"), ("real-map", 4, "row"), ("real-map", 5, "map"),
    ("jobs", 1, "grid"), ("jobs", 6, "example"), ("rope", 3, "rope"),
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
