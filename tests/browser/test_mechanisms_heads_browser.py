"""The many-heads widget kinds in the browser (demo decks of tests/browser/decks): head-maps, concat
and heatmap. For each: what the DOM shows is the frame's numbers (which tests/test_mechanisms_heads.py
ties to the engine). For these and the real model's kinds (sizes, rope, gqa, whose numbers
tests/browser/test_rope_gqa_browser.py checks): the end state after the motion equals the reduced-motion
end state; a key
pressed mid-motion finishes it (nothing keeps moving, and the stage lands on the key's step drawn
as without motion); no text under the type floor at 1280 × 720; no serious axe violation."""

from __future__ import annotations

import re

import pytest
from axe_probe import serious_violations
from panel_check import SMALL_TEXT
from widget_motion import RUNNING, STILL, WATCH, WIDGET_HTML, frame_data, open_at

# (deck, widget id, the step whose motion is checked: "#/slide/step", the step before it)
KINDS = {
    "head-maps": ("mechanisms-heads", "#/1/2", "#/1/1"),
    "concat": ("mechanisms-heads", "#/2/3", "#/2/2"),
    "heatmap": ("mechanisms-heads-model", "#/1/3", "#/1/2"),
    "sizes": ("mechanisms-model", "#/1/2", "#/1/1"),  # the real model's kinds (tests/browser/test_rope_gqa_browser.py)
    "rope": ("mechanisms-model", "#/2/2", "#/2/1"),
    "gqa": ("mechanisms-model", "#/3/2", "#/3/1"),
}


def reduced_end(browser, base: str, kind: str, hash_: str) -> str:
    deck = KINDS[kind][0]
    ctx, page, errors = open_at(browser, base, deck, hash_, "reduce")
    try:
        assert page.evaluate(STILL) == 0
        html = page.evaluate(WIDGET_HTML, kind)
        assert html and errors == []
        return html
    finally:
        ctx.close()


@pytest.mark.parametrize("kind", KINDS)
def test_the_motion_ends_where_reduced_motion_starts(browser, demo_url, kind) -> None:
    deck, hash_, before = KINDS[kind]
    still = reduced_end(browser, demo_url, kind, hash_)
    ctx, page, errors = open_at(browser, demo_url, deck, before, "no-preference")
    try:
        assert page.evaluate(STILL) == 0
        page.evaluate(WATCH, [kind, None])
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => location.hash === '{hash_}'")
        assert page.evaluate("window.__moved") > 0, "the step should move"
        assert page.evaluate(STILL) == 0
        assert page.evaluate(WIDGET_HTML, kind) == still
        assert page.evaluate(f"({SMALL_TEXT})()") == []
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_mid_motion_finishes_it(browser, demo_url, kind) -> None:
    deck, _, before = KINDS[kind]
    still_before = reduced_end(browser, demo_url, kind, before)
    ctx, page, errors = open_at(browser, demo_url, deck, before, "no-preference")
    try:
        page.evaluate(STILL)
        page.evaluate(WATCH, [kind, "ArrowLeft"])  # mid-motion: the motion is finished, the step before drawn
        page.keyboard.press("ArrowRight")
        assert page.evaluate("window.__moved") > 0, "the step should move"
        page.wait_for_function(f"() => location.hash === '{before}'")
        assert page.evaluate(RUNNING, kind) == 0
        assert page.evaluate(WIDGET_HTML, kind) == still_before
        assert errors == []
    finally:
        ctx.close()


def test_head_maps_show_the_frames_jobs_scores_and_weights(browser, demo_url) -> None:
    ctx, page, errors = open_at(browser, demo_url, "mechanisms-heads", "#/1/2", "reduce")
    try:
        d = frame_data(page, demo_url, "mechanisms-heads", 1, 2)
        maps = page.locator(".widget-head-maps g.head-map")
        assert maps.count() == len(d["heads"]) == 8
        for k, head in enumerate(d["heads"]):
            g = maps.nth(k)
            assert g.locator(".head-job").text_content() == head["job"]
            assert g.locator(".head-score").text_content() == f"{round(100 * head['score'])} %"
            assert g.locator(".measured-cell").count() == len(head["targets"])
            label = g.get_attribute("aria-label")
            for i, row in enumerate(head["weights"]):
                assert f"{d['tokens'][i]}: " + ", ".join(f"{w:.2f}" for w in row[: i + 1]) in label
        assert len({head["job"] for head in d["heads"]}) == 8  # the maps differ: eight jobs
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()


def test_concat_shows_the_frames_shapes_and_numbers(browser, demo_url) -> None:
    ctx, page, errors = open_at(browser, demo_url, "mechanisms-heads", "#/2/3", "reduce")
    try:
        d = frame_data(page, demo_url, "mechanisms-heads", 2, 3)
        text = page.locator(".widget-concat svg").text_content()
        fmt = lambda s: f"{s[0]:,} × {s[1]:,}"  # noqa: E731
        block = fmt(d["blocks"][0]["shape"])
        assert text.count(block) == len(d["blocks"]) and block == "7 × 128"
        assert f"concatenated: {fmt(d['concat'])}" in text and fmt(d["concat"]) == "7 × 1,024"
        assert fmt(d["w_o"]) in text and fmt(d["w_o"]) == "1,024 × 7,168"
        assert fmt(d["output"]) in text and fmt(d["output"]) == "7 × 7,168"
        values = page.locator(".concat-value")
        assert values.count() == len(d["values"])
        for k, v in enumerate(d["values"]):
            shown = values.nth(k).text_content().replace("−", "-")
            assert float(shown) == pytest.approx(v, abs=5e-4)
            assert values.nth(k).get_attribute("data-column") == str(d["columns"][k])
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()


def test_the_heatmap_shows_the_frames_values_on_focus_and_zooms_into_the_winner(browser, demo_url) -> None:
    ctx, page, errors = open_at(browser, demo_url, "mechanisms-heads-model", "#/1/2", "reduce")
    try:
        d = frame_data(page, demo_url, "mechanisms-heads-model", 1, 2)
        cells = page.locator(".heat-grid .heat-cell")
        assert cells.count() == len(d["rows"]) * len(d["cols"])
        shown = page.evaluate("() => [...document.querySelectorAll('.heat-grid .heat-cell')].map((c) => "
                              "[Number(c.dataset.value), c.getAttribute('aria-label')])")
        flat = [v for row in d["values"] for v in row]
        assert [v for v, _ in shown] == pytest.approx(flat, abs=1e-12)
        for (v, name), (i, j) in zip(shown, [(i, j) for i in range(len(d["rows"])) for j in range(len(d["cols"]))],
                                     strict=True):
            assert name == f"layer {d['cols'][j]}, head {d['rows'][i]}: {round(100 * v)} %"
        assert not re.search(r"\d+ %", page.locator(".heat-grid").text_content())  # no numbers until focus
        wr, wc = d["winner"]
        assert f"top scorer: layer {d['cols'][wc]}, head {d['rows'][wr]}" in page.locator(".heat-winner").text_content()
        page.keyboard.press("Tab")
        page.locator(".heat-grid .heat-cell").first.focus()
        page.keyboard.press("ArrowRight")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == shown[1][1]
        assert page.locator(".heat-tip text").text_content() == f"{round(100 * flat[1])} %"
        page.locator(".heat-grid .heat-cell").nth(2).hover()  # the pointer shows a cell's number too
        assert page.locator(".heat-tip text").text_content() == f"{round(100 * flat[2])} %"
        tint = page.evaluate("() => getComputedStyle(document.querySelectorAll('.heat-grid .heat-cell')[2])"
                             ".fillOpacity")
        assert float(tint) == pytest.approx(0.05 + 0.9 * flat[2], abs=1e-3)
        assert serious_violations(page) == []
        page.keyboard.press("Escape")
        page.evaluate("() => document.activeElement?.blur()")
        page.keyboard.press("ArrowRight")
        page.wait_for_function("() => location.hash === '#/1/3'")
        page.wait_for_selector(".heat-zoom")
        z = frame_data(page, demo_url, "mechanisms-heads-model", 1, 3)["zoom"]
        zoomed = page.evaluate("() => [...document.querySelectorAll('.heat-zoom .heat-cell')]"
                               ".map((c) => Number(c.dataset.value))")
        assert zoomed == pytest.approx([v for row in z["weights"] for v in row], abs=1e-12)
        assert z["title"] in page.locator(".heat-zoom").text_content()
        assert page.evaluate(f"({SMALL_TEXT})()") == []
        assert serious_violations(page) == []
        assert errors == []
    finally:
        ctx.close()
