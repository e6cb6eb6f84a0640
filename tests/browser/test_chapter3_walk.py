"""Chapter 3 ("What real heads do") in real Chromium, on the real model: every step in order (the
caption follows, nothing leaves the 16:9 stage, no console error), derivation panels on the real map
and the score grids, and the lab link."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from panel_check import check_cell, goto_slide, walk_captions

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
