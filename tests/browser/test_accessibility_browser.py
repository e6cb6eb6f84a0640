"""Everyone can follow: axe-core finds nothing serious on every kind of page and state, and the
keyboard and screen-reader behaviours hold in a real Chromium (one Tab stop per picker and
matrix, Space and Enter for the focused button, focus given back by overlays and panels, what the
announcer says, tables equal to the drawn tensors, single-key shortcuts that can be turned off)."""

from __future__ import annotations

import pytest
from axe_probe import serious_violations
from stage_probe import DECKS, DRAWN, track, tracked_page

ONE, TWO, THREE = "attention-step-by-step", "attention-walkthrough", "real-heads"


def slide_hash(page, slide_id: str, step: int | str = 1) -> str:
    n = page.evaluate(f"window.attentionTalk.player.slides.findIndex(s => s.id === '{slide_id}') + 1")
    assert n > 0, slide_id
    steps = page.evaluate(f"window.attentionTalk.player.stepsOf({n})")
    if step == "last":
        step = steps
    assert 1 <= int(step) <= steps, f"{slide_id} has {steps} steps, not a step {step}"  # a deck edit moved it
    return f"#/{n}/{step}"


# Resolves once the page has been idle: what it writes in idle time (the tensors' tables) is written.
IDLE = """() => new Promise((r) => requestIdleCallback(() => setTimeout(r), { timeout: 2000 }))"""


def go(page, hash_: str) -> None:
    """Jump to `hash_` (the page was track()ed) and wait until its frame is drawn (motion reduced:
    nothing moves after that) and the page has written what it writes in idle time."""
    page.evaluate("h => { location.hash = h; }", hash_)
    at = "h => { const s = window.attentionTalk.player.state; return `#/${s.slide}/${s.step}` === h; }"
    page.wait_for_function(at, arg=hash_)
    page.evaluate(DRAWN, hash_)
    page.evaluate(IDLE)


# (deck, slide id, step, what it shows)
STEPS = [
    (ONE, "title", 1, "title step"), (ONE, "query-dense", 3, "matrix step"),
    (ONE, "attention-map", 2, "question on the drawing's labels"), (ONE, "attention-map", 3, "reveal, asked first"),
    (ONE, "softmax", 6, "question on a widget's labels"), (TWO, "self-cross-masks", 3, "estimate question"),
    (ONE, "many-heads", 2, "widget step"), (ONE, "attention-map", 4, "map with derivations"),
    (TWO, "title", 1, "title step"), (TWO, "pipeline", 2, "matrix step"),
    (TWO, "self-cross-masks", 4, "token picker"), (TWO, "the-equation", 2, "equation step"),
    (TWO, "multi-head", 4, "concat widget"), (TWO, "the-cost", 1, "slider widget"),
    (TWO, "the-cost", 3, "widget step"),
    (THREE, "real-map", 5, "real map"), (THREE, "jobs", 1, "score grid"), (THREE, "gqa", 2, "bars"),
    (THREE, "same-different", 3, "lab link"),
]


@pytest.fixture(scope="module")
def axe_page(browser):
    with tracked_page(browser) as page:
        yield page


@pytest.mark.parametrize("deck", DECKS)  # chapter 3 where the model is installed
def test_axe_finds_nothing_serious_on_the_talk(axe_page, server_url, deck) -> None:
    page = axe_page
    page.goto(f"{server_url}/talk/{deck}")
    page.wait_for_selector("#player.ready", state="attached")
    found = {}
    for d, slide, step, what in STEPS:
        if d != deck:
            continue
        go(page, slide_hash(page, slide, step))
        for theme in ("dark", "light"):
            if page.evaluate("document.documentElement.dataset.theme") != theme:
                page.keyboard.press("d")
            if bad := serious_violations(page):
                found[f"{slide}/{step} ({what}, {theme})"] = bad
    page.keyboard.press("o")
    page.wait_for_selector("#overview:not([hidden])")
    if bad := serious_violations(page):
        found["overview open"] = bad
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    if bad := serious_violations(page):
        found["help open"] = bad
    page.keyboard.press("Escape")
    assert found == {}


@pytest.mark.parametrize("path", ["/", f"/talk/{ONE}/presenter", f"/talk/{TWO}/print", "/docs"])
def test_axe_finds_nothing_serious_on_the_other_pages(axe_page, server_url, path) -> None:
    page = axe_page
    page.goto(f"{server_url}{path}")
    page.wait_for_load_state("networkidle")
    if path == "/docs":
        page.wait_for_selector(".opblock-summary-control")
        page.locator(".opblock-summary-control").nth(1).click()  # an open operation too
        page.wait_for_timeout(300)
    assert serious_violations(page) == []


@pytest.fixture
def kb(page, server_url):
    """A talk page at 1280×720 with motion reduced, opened at a slide (by id) and step."""

    def open_(deck: str, slide: str, step: int = 1):
        page.emulate_media(reduced_motion="reduce")
        track(page)
        page.goto(f"{server_url}/talk/{deck}")
        page.wait_for_selector("#player.ready", state="attached")
        go(page, slide_hash(page, slide, step))
        return page

    return open_


def position(page) -> tuple[str, str]:
    root = page.locator("#player")
    return root.get_attribute("data-slide"), root.get_attribute("data-step")


def active(page, js: str):
    return page.evaluate(f"(() => {{ const el = document.activeElement; return {js}; }})()")


def test_space_and_enter_press_the_focused_button_not_the_talk(kb, server_url) -> None:
    page = kb(TWO, "self-cross-masks", 4)
    picker = page.locator(".slide.active .widget-token-picker")
    picker.locator(".picker-token").nth(3).focus()
    page.keyboard.press("Space")
    assert picker.get_attribute("data-selected") == "3" and position(page) == ("self-cross-masks", "4")
    picker.locator(".picker-token").nth(1).focus()
    page.keyboard.press("Enter")
    assert picker.get_attribute("data-selected") == "1" and position(page) == ("self-cross-masks", "4")
    page = kb(ONE, "map-size", 3)
    panel = page.locator("#slide-map-size .growth-panel")
    first = panel.locator("dd").first
    before = first.inner_text()
    panel.get_by_role("button", name="Double the context").focus()
    page.keyboard.press("Space")
    assert first.inner_text() != before and position(page) == ("map-size", "3")
    page.keyboard.press("PageDown")  # the clicker still steps
    page.wait_for_function("() => document.querySelector('#player').dataset.slide === 'values'")


def test_speaker_view_pause_takes_space(page, server_url) -> None:
    page.goto(f"{server_url}/talk/{ONE}/presenter")
    page.wait_for_selector("#presenter.ready", state="attached")
    pause = page.locator("#timer-pause")
    pause.focus()
    page.keyboard.press("Space")
    assert pause.inner_text() == "Resume"
    assert page.locator("#presenter").get_attribute("data-step") == "1"
    assert page.locator("#presenter").get_attribute("data-slide") == "title"


def test_overview_holds_the_page_and_gives_the_focus_back(kb) -> None:
    page = kb(ONE, "attention-map", 4)
    page.locator(".slide.active .cell.derivable[tabindex='0']").first.focus()
    cell = active(page, "[el.dataset.r, el.dataset.c, el.closest('.tensor').dataset.tensor]")
    page.keyboard.press("o")
    page.wait_for_selector("#overview:not([hidden])")
    assert page.evaluate("document.querySelector('#player .viewport').inert")
    seen = set()
    for _ in range(6):  # Tab stays in the overview: no hidden cell behind it is reachable
        page.keyboard.press("Tab")
        where = "el.closest('#overview') ? 'overview' : (el.closest('.viewport') ? 'stage' : el.tagName)"
        seen.add(active(page, where))
    assert "stage" not in seen
    page.keyboard.press("Escape")
    page.wait_for_selector("#overview", state="hidden")
    assert not page.evaluate("document.querySelector('#player .viewport').inert")
    assert active(page, "[el.dataset.r, el.dataset.c, el.closest('.tensor')?.dataset.tensor]") == cell


def test_help_takes_the_focus_and_single_keys_can_be_turned_off(kb) -> None:
    page = kb(ONE, "query", 1)
    page.keyboard.press("?")
    assert active(page, "el.id") == "help"
    box = page.locator("#single-keys")
    assert box.is_checked()
    box.uncheck()
    page.keyboard.press("Escape")
    assert page.locator("#help").is_hidden()
    page.keyboard.press("n")  # a letter: off
    page.keyboard.press("j")
    assert position(page) == ("query", "1")
    page.keyboard.press("ArrowRight")  # the arrows still step
    assert position(page) == ("query", "2")
    page.keyboard.press("F1")  # and F1 still opens the help
    assert page.locator("#help").is_visible()
    box.check()
    page.keyboard.press("Escape")
    page.keyboard.press("n")
    assert position(page) == ("query", "3")
    page.reload()
    page.wait_for_selector("#player.ready", state="attached")
    assert page.evaluate("localStorage.getItem('attention-talk-single-keys')") == "on"


def test_announcer_says_the_slide_then_each_caption(kb, server_url) -> None:
    page = kb(ONE, "every-token", "last")
    manifest = page.request.get(f"{server_url}/api/decks/{ONE}").json()
    n = next(i for i, s in enumerate(manifest["slides"]) if s["id"] == "attention-map")
    slide = manifest["slides"][n]
    page.keyboard.press("ArrowRight")
    announcer = page.locator("#announcer")
    expected = f"Slide {n + 1} of {len(manifest['slides'])}, {slide['title']}, step 1 of {slide['steps']}. "
    page.wait_for_function("t => document.querySelector('#announcer').textContent === t",
                           arg=expected + slide["captions"][0])
    page.keyboard.press("ArrowRight")
    page.wait_for_function("t => document.querySelector('#announcer').textContent === t", arg=slide["captions"][1])
    assert announcer.get_attribute("aria-live") == "polite"
    live = "[aria-live='polite'], [aria-live='assertive'], output, [role='status']"
    # the page's own live regions, and on a question step (9/2) the question panel's one status line
    assert page.locator(f":is({live}):not(#quiz-panel *)").count() <= 3
    assert page.locator(f"#quiz-panel :is({live})").count() <= 1


def test_skip_link_jumps_over_the_drawing(kb) -> None:
    page = kb(ONE, "attention-map", 4)
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("Tab")
    assert active(page, "el.className") == "skip-link"
    assert page.locator(".skip-link").is_visible()
    hash_ = page.evaluate("location.hash")
    page.keyboard.press("Enter")
    assert active(page, "el.id") == "caption" and page.evaluate("location.hash") == hash_


@pytest.mark.parametrize("deck, slide, step", [(ONE, "softmax", 7), (ONE, "softmax", 1), (TWO, "pipeline", 3)])
def test_each_tensor_has_a_table_with_its_values(kb, server_url, deck, slide, step) -> None:
    from attention_talk.formatting import number

    page = kb(deck, slide, step)
    frame = page.request.get(f"{server_url}/api/decks/{deck}/slides/{slide}/frames").json()
    frame = (frame["frames"] if isinstance(frame, dict) else frame)[step - 1]
    assert frame["tensors"]
    names = sorted(t["name"] for t in frame["tensors"])
    page.wait_for_function(  # written in idle time, once the step is painted
        "names => JSON.stringify([...document.querySelectorAll('.slide.active .tensor-tables table')]"
        ".map((t) => t.dataset.tableFor).sort()) === JSON.stringify(names)", arg=names)
    for t in frame["tensors"]:
        table = page.locator(f".slide.active .tensor-tables table[data-table-for='{t['name']}']")
        assert table.locator("caption").inner_text().startswith(t["label"])
        cells = table.locator("tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.querySelectorAll('td')].map(td => td.textContent))")
        heads = table.locator("tbody th").all_inner_texts()
        assert heads == [r or f"row {i + 1}" for r, i in zip(t["rows"], t["row_index"], strict=True)]
        if t.get("reveal", "all") == "all":
            assert cells == [[number(v, t["digits"]) for v in row] for row in t["values"]]
        assert len(cells) == len(t["values"]) and all(len(r) == len(t["cols"]) for r in cells)
