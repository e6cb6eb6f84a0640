"""FlashAttention's sweep (the ``flash`` widget, walkthrough slide 9, steps 4–6: tile 1, tile 3 after the
skipped one, the end) in real Chromium:

- it draws the engine's numbers: each row's m, ℓ and Z after the current tile, the tile's scores;
- it moves: the sweep frame travels, the ℓ bar of a row with a new max shrinks, then grows;
- the end state after the motion equals the reduced-motion one (and loading the step by its URL);
- a number clicked shows its derivation, the one the frame carries."""

from __future__ import annotations

import pytest
from stage_probe import open_at, step_forward, tracked_page
from widget_motion import RECORD

from attention_talk.formatting import number

DECK = "attention-walkthrough"
STEPS = ["#/9/4", "#/9/5", "#/9/6"]

DRAWING = """() => document.querySelector('.slide.active .widget-flash').innerHTML"""
NUMBERS = """(sel) => [...document.querySelectorAll(`.slide.active .widget-flash ${sel}`)]
  .filter((t) => !t.closest('[aria-hidden]') && t.hasAttribute('tabindex')).map((t) => t.textContent)"""
OUTPUTS = """() => [...document.querySelectorAll('.slide.active .widget-flash > svg > .flash-num.output')]
  .map((t) => t.textContent)"""
SETTLED = """async () => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (moving() && performance.now() - t0 < 8000) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""
STARTED = """() => window.__started.filter(([a, el]) => el.closest('.widget-flash'))
  .map(([a, el]) => el.getAttribute('class'))"""


@pytest.fixture(scope="module")
def still(browser, server_url):
    with tracked_page(browser) as page:
        open_at(page, server_url, DECK, STEPS[0])
        yield page


@pytest.fixture(scope="module")
def moving(browser):
    with tracked_page(browser, motion="no-preference") as page:
        page.add_init_script(RECORD)
        yield page


@pytest.fixture(scope="module")
def sweep(still, server_url):
    frames = still.request.get(f"{server_url}/api/decks/{DECK}/slides/the-cost/frames").json()["frames"]
    return [next(w for w in f["widgets"] if w["type"] == "flash")["data"] for f in frames[3:6]]


def after(data: dict) -> dict[int, tuple[dict, int]]:
    """Each row's latest tile up to the current one: what the view must show."""
    rows = {}
    for t in data["tiles"][: data["current"] + 1]:
        for r in range(*t["rows"]):
            rows[r] = (t, r - t["rows"][0])
    return rows


def test_the_sweep_draws_the_engines_numbers(still, server_url, sweep) -> None:
    for hash_, data in zip(STEPS, sweep, strict=True):
        open_at(still, server_url, DECK, hash_)
        rows = after(data)
        z = [number(v, 2) for r in sorted(rows) for v in rows[r][0]["o"][rows[r][1]]]
        if data["stage"] == "done":
            assert still.evaluate(NUMBERS, ".flash-pipeline .flash-num") == [number(v, 2) for row in data["exact"]
                                                                              for v in row]
            z = [number(v, 2) for row in data["exact"] for v in row]  # the tiles' Z, equal to 2 decimals
        else:
            m = [number(rows[r][0]["m"][rows[r][1]], 3) for r in sorted(rows)]
            ell = [number(rows[r][0]["l"][rows[r][1]], 3) for r in sorted(rows)]
            shown = still.evaluate(NUMBERS, ".flash-columns .flash-num")
            assert shown == [x for pair in zip(m, ell, strict=True) for x in pair], hash_
        outputs = still.evaluate(OUTPUTS)
        assert outputs == z, hash_
        scores = still.evaluate(NUMBERS, ".flash-s")
        if data["stage"] == "tile":
            cur = data["tiles"][data["current"]]
            assert scores == [number(v, 2) if v is not None else "−∞" for row in cur["s"] for v in row]
        else:
            assert scores == []  # a done tile keeps no scores: the map is never stored
        skip_shown = still.evaluate("() => getComputedStyle(document.querySelector('.slide.active .flash-skip'))"
                                    ".opacity")
        assert skip_shown == ("0" if hash_ == "#/9/4" else "1"), hash_


def test_it_moves_and_ends_as_the_reduced_motion_drawing(still, moving, server_url) -> None:
    open_at(moving, server_url, DECK, STEPS[0])
    moving.evaluate(SETTLED)
    for hash_ in STEPS[1:]:
        moving.evaluate("() => { window.__started = []; }")
        step_forward(moving, hash_)
        started = moving.evaluate(STARTED)
        assert started, f"{hash_}: nothing moved"
        if hash_ == "#/9/5":  # the sweep frame travels; the old sums shrink, then the tile's own sums are added
            assert any("flash-frame" in c for c in started), hash_
            assert any(c == "flash-bar l" for c in started) and any(c == "flash-bar l added" for c in started)
        moving.evaluate(SETTLED)
        open_at(still, server_url, DECK, hash_)
        assert moving.evaluate(DRAWING) == still.evaluate(DRAWING), hash_


def test_a_number_clicked_shows_its_derivation(still, server_url, sweep) -> None:
    open_at(still, server_url, DECK, "#/9/5")
    data = sweep[1]
    t3 = data["tiles"][2]
    strip = still.locator(".slide.active .flash-strip")
    assert strip.text_content() == t3["story"]
    bank = 6
    ell = still.locator(".slide.active .flash-columns .flash-num").nth(2 * bank + 1)
    assert ell.text_content() == number(t3["l"][bank - 4], 3)
    ell.click()
    assert strip.text_content() == t3["why_l"][bank - 4]
    assert "× " not in strip.text_content() or "e^(m before − m)" in strip.text_content()
    assert "picked" in ell.get_attribute("class")
    score = still.locator(".slide.active .flash-s").first
    score.focus()
    still.keyboard.press("Enter")
    assert strip.text_content() == t3["why_s"][0][0]
    still.keyboard.press("ArrowRight")  # the arrows move between the numbers
    assert still.evaluate("() => document.activeElement.textContent") == number(t3["s"][0][1], 2) \
        if t3["s"][0][1] is not None else "−∞"


def test_no_text_under_the_floor_and_nothing_serious_for_axe(still, server_url) -> None:
    from axe_probe import serious_violations
    from panel_check import SMALL_TEXT

    found, small = {}, {}
    for hash_ in ["#/9/1", *STEPS, "#/9/7"]:
        open_at(still, server_url, DECK, hash_)
        if bad := still.evaluate(SMALL_TEXT):
            small[hash_] = bad
        found[hash_] = serious_violations(still)
    assert small == {}
    assert all(v == [] for v in found.values()), found
