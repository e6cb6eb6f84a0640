"""Chapter 1 stepped with → shows what loading the step's URL shows: a tensor that keeps its name
but changes its label (the attention map becoming the masked map, so the mask can sweep in) must
change its title too."""

from __future__ import annotations

from url_probe import wait_hash

DECK = "attention-step-by-step"
TITLE = ".slide.active [data-tensor='map'] .tensor-title"
TITLE_JS = f"""() => [...document.querySelectorAll("{TITLE}")].map(t => t.firstChild.textContent)"""


def test_the_masked_map_title_when_loaded(open_talk) -> None:
    page = open_talk(DECK, "#/9/6")
    page.locator(TITLE).wait_for()
    assert page.evaluate(TITLE_JS) == ["masked map Q·Kᵀ + M"]


def test_the_masked_map_title_when_stepped(open_talk) -> None:
    page = open_talk(DECK, "#/9/5")
    page.locator(TITLE).wait_for()
    assert page.evaluate(TITLE_JS) == ["attention map Q·Kᵀ"]
    page.keyboard.press("ArrowRight")
    assert wait_hash(page, "#/9/6") == "#/9/6"
    page.wait_for_timeout(300)
    assert page.evaluate(TITLE_JS) == ["masked map Q·Kᵀ + M"]
