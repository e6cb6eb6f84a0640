"""Contrast in both themes (D swaps them): every visible text on sampled steps (titles, matrices
with masked and dimmed cells and heat, widgets) reaches 4.5:1 against what is really behind it,
dimmed context (rows not in focus, inactive pipeline stages) 3:1; and every matrix's strongest cell
(the largest weight, the largest |score|) stands ≥ 3:1 against the page, so a map never vanishes
on a dark or washed-out screen. Measured in the browser over the composited layers
(contrast_probe.py), SVG text included."""

from __future__ import annotations

import pytest
from contrast_probe import CONTRAST, STRONGEST
from stage_probe import DECKS, open_at, tracked_page

SAMPLED = {
    "attention-step-by-step": ["#/1/1", "#/3/1", "#/6/2", "#/9/7", "#/10/2", "#/12/5", "#/12/7", "#/13/2",
                               "#/15/2"],
    "attention-walkthrough": ["#/1/1", "#/2/2", "#/5/2", "#/6/2", "#/6/3", "#/8/2", "#/9/3", "#/9/4"],
    # chapter 4: the cover, the cache blocks, the latent, the keep, sparse beside dense, the totals
    "deepseek-attention": ["#/1/1", "#/2/1", "#/3/2", "#/6/3", "#/6/4", "#/7/3"],
}
if "real-heads" in DECKS:  # chapter 3, where the model is installed: RoPE, the real map, a grid, bars, the link
    SAMPLED["real-heads"] = ["#/3/3", "#/5/4", "#/6/1", "#/7/2", "#/8/3"]


THEMES = ("dark", "light")


@pytest.fixture(scope="module")
def contrast_by_theme(browser, server_url):
    """Every sampled step loaded once and measured in both themes (D swaps them, and the page keeps
    the last one for the next load): {theme: [steps measured]} and {theme: {step: texts too low}}."""
    measured: dict[str, list[str]] = {theme: [] for theme in THEMES}
    low: dict[str, dict] = {theme: {} for theme in THEMES}
    faint: dict[str, dict] = {theme: {} for theme in THEMES}
    with tracked_page(browser) as page:
        for deck, steps in SAMPLED.items():
            for hash_ in steps:
                open_at(page, server_url, deck, hash_)
                for press in (False, True):
                    if press:
                        page.keyboard.press("d")
                    theme = page.evaluate("document.documentElement.dataset.theme")
                    page.wait_for_timeout(50)
                    bad = page.evaluate(CONTRAST)
                    measured[theme].append(f"{deck} {hash_}")
                    if bad:
                        low[theme][f"{deck} {hash_}"] = bad[:4]
                    if weak := page.evaluate(STRONGEST):
                        faint[theme][f"{deck} {hash_}"] = weak
    return measured, low, faint


@pytest.mark.parametrize("theme", THEMES)
def test_text_contrast_in_both_themes(contrast_by_theme, theme) -> None:
    measured, low, _ = contrast_by_theme
    assert measured[theme] == [f"{deck} {hash_}" for deck, steps in SAMPLED.items() for hash_ in steps]
    assert low[theme] == {}


@pytest.mark.parametrize("theme", THEMES)
def test_the_strongest_cell_of_every_matrix_stands_out_in_both_themes(contrast_by_theme, theme) -> None:
    measured, _, faint = contrast_by_theme
    assert len(measured[theme]) == sum(len(steps) for steps in SAMPLED.values())
    assert faint[theme] == {}
