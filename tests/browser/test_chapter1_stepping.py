"""Chapter 1 stepped with → shows what loading the step's URL shows: a drawing that keeps its place
but changes its title (the map becoming the masked map Q·Kᵀ + M as the mask M is added, 9/6 → 9/7)
must change its title too."""

from __future__ import annotations

from url_probe import wait_hash

DECK = "attention-step-by-step"
TITLE = ".slide.active .mech-scores > .mech-title"
TITLE_JS = f"""() => [...document.querySelectorAll("{TITLE}")].map(t => t.textContent)"""


def test_the_masked_map_title_when_loaded(open_talk) -> None:
    page = open_talk(DECK, "#/9/7")
    page.locator(TITLE).wait_for()
    assert page.evaluate(TITLE_JS) == ["Q·Kᵀ + M"]


def test_the_masked_map_title_when_stepped(open_talk) -> None:
    page = open_talk(DECK, "#/9/6")
    page.locator(TITLE).wait_for()
    assert page.evaluate(TITLE_JS) == ["Q·Kᵀ"]
    page.keyboard.press("ArrowRight")
    assert wait_hash(page, "#/9/7") == "#/9/7"
    page.wait_for_timeout(300)
    assert page.evaluate(TITLE_JS) == ["Q·Kᵀ + M"]
