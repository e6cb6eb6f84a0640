"""Chapter 2 in real Chromium: every step, the choose-a-token widget, derivation panels, no overflow."""

from __future__ import annotations

import pytest
from panel_check import check_cell, goto_slide, num, panel_recomputes, walk_captions

DECK = "attention-walkthrough"

def test_walk_every_step(open_talk, watch, server_url) -> None:
    page = open_talk(DECK)
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    captions = [c for s in manifest["slides"] for c in s["captions"]]
    assert 30 <= len(captions) <= 40  # issue 31: a third shorter than its 59 steps
    walk_captions(page, captions)
    watch.assert_clean()


# The cost slide's square: its filled part's side, over the whole square's, once its motion ends.
SQUARE = """async () => {
  const square = document.querySelector('.slide.active .slider-square');
  const fill = square.firstElementChild;
  await Promise.all(fill.getAnimations().map((a) => a.finished));
  const outer = square.getBoundingClientRect(), inner = fill.getBoundingClientRect();
  const scale = outer.width / square.offsetWidth;  // the stage's scale; the square has a border
  return { side: Number(square.style.getPropertyValue('--side')),
           w: inner.width / scale / square.clientWidth, h: inner.height / scale / square.clientHeight,
           left: (inner.left - outer.left) / scale - square.clientLeft,
           top: (inner.top - outer.top) / scale - square.clientTop,
           n: document.querySelector('.slide.active .slider-n').textContent };
}"""


def test_the_cost_square_grows_with_n(open_talk, watch, server_url) -> None:
    """The square's area stands for n² pairs: its side is the frame's `side` (n over the largest n),
    drawn from the top-left corner, at the frame's n and after the slider jumps to the largest."""
    page = open_talk(DECK)
    goto_slide(page, "the-cost", 1)
    frames = page.request.get(f"{server_url}/api/decks/{DECK}/slides/the-cost/frames").json()
    data = next(w for w in frames["frames"][0]["widgets"] if w["type"] == "slider")["data"]
    options = data["options"]
    for picked in (data["selected"], len(options) - 1):
        if picked == len(options) - 1:
            page.locator(".slide.active .widget-slider input[type=range]").focus()
            page.keyboard.press("End")
        seen = page.evaluate(SQUARE)
        o = options[picked]
        assert seen["n"] == f"n = {o['n']:,}" and seen["side"] == pytest.approx(o["side"])
        assert o["side"] == pytest.approx(o["n"] / options[-1]["n"])
        assert seen["w"] == pytest.approx(o["side"], abs=0.005) and seen["h"] == pytest.approx(o["side"], abs=0.005)
        assert abs(seen["left"]) < 0.5 and abs(seen["top"]) < 0.5  # from the top-left corner
    assert seen["side"] == 1.0
    watch.assert_clean()


def picker_state(page) -> tuple[str, list[float], str]:
    root = page.locator(".slide.active .widget-token-picker")
    values = [num(t) for t in root.locator(".wb-value").all_inner_texts()]
    return root.get_attribute("data-selected"), values, root.locator(".wb-sum").inner_text()


def test_choose_a_token(open_talk, watch) -> None:
    page = open_talk(DECK)
    goto_slide(page, "self-cross-masks", 4)
    page.wait_for_selector(".slide.active .widget-token-picker .picker-token")
    first = picker_state(page)
    assert first[2] == "row sum 1.000"
    page.locator(".slide.active .picker-token").nth(3).click()
    clicked = picker_state(page)
    assert clicked[0] == "3" and clicked[1] != first[1] and clicked[2] == "row sum 1.000"
    assert sum(clicked[1]) == pytest.approx(1.0, abs=0.004)
    assert clicked[1][4:] == [0.0, 0.0, 0.0]  # causal: nothing after the chosen token
    page.keyboard.press("3")
    assert picker_state(page)[0] == "2"
    # One Tab stop: Tab reaches the chosen token without changing the choice; the arrows move it.
    for _ in range(12):  # Tab through the page's stops up to the picker (a reveal asked first adds two)
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('picker-token')"):
            break
    assert picker_state(page)[0] == "2"
    assert page.evaluate("document.activeElement.dataset.index") == "2"
    page.keyboard.press("Tab")  # out again: the picker is one stop, the choice stays
    assert not page.evaluate("document.activeElement.classList.contains('picker-token')")
    assert picker_state(page)[0] == "2"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("ArrowRight")
    by_arrow = picker_state(page)
    assert by_arrow[0] == "3" and by_arrow[2] == "row sum 1.000"
    assert page.evaluate("document.activeElement.dataset.index") == "3"
    root = page.locator("#player")
    assert (root.get_attribute("data-slide"), root.get_attribute("data-step")) == ("self-cross-masks", "4")
    watch.assert_clean()


@pytest.mark.parametrize("slide, step, tensor", [
    ("pipeline", 1, "Q"), ("pipeline", 1, "X"), ("pipeline", 2, "Kt"), ("pipeline", 2, "S"), ("pipeline", 3, "S"),
    ("pipeline", 3, "A"), ("pipeline", 4, "Z"), ("pipeline", 4, "O"), ("multi-head", 5, "cat"), ("multi-head", 5, "O"),
    ("before-attention", 3, "c"),
])
def test_derivation_panel_recomputes_the_cell(talk, slide, step, tensor) -> None:
    page = talk.open(DECK)
    goto_slide(page, slide, step)
    cells = page.locator(f".slide.active [data-tensor='{tensor}'] .cell.derivable")
    cells.first.wait_for()
    for k in (0, cells.count() - 1):
        cell = cells.nth(k)
        cell.click()
        check_cell(page, cell)
    talk.assert_clean()


# Once everything on the stage has stopped moving: the panel's box, its cell's, and how many cells of
# the panel's matrix it covers.
PANEL_OVER = """async (tensor) => {
  const moving = () => document.getAnimations().filter((a) => a.playState === 'running' || a.pending);
  await Promise.all(moving().map((a) => a.finished.catch(() => null)));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const p = document.querySelector('.derivation-panel:not([hidden])').getBoundingClientRect();
  const over = (el) => { const r = el.getBoundingClientRect();
    return r.left < p.right && r.right > p.left && r.top < p.bottom && r.bottom > p.top; };
  const cells = [...document.querySelectorAll(`.slide.active [data-tensor='${tensor}'] .cell`)];
  return { covered: cells.filter(over).length, own: over(document.querySelector('.cell.explained')) };
}"""


# Hold every animation on the page at `f` of its run (the slide's entry, its matrices' motion).
HOLD = """(f) => { for (const a of document.getAnimations()) {
  a.pause(); a.currentTime = f * a.effect.getComputedTiming().endTime; } }"""


@pytest.mark.parametrize("f", [0.0, 0.3, 0.6])
def test_a_cell_clicked_while_its_slide_flies_in_gets_its_panel_beside_where_it_lands(open_talk, watch, f) -> None:
    page = open_talk(DECK)
    page.evaluate("() => new Promise((r) => setTimeout(r, 300))")  # the first slide's own entry is over
    number = page.evaluate("() => window.attentionTalk.player.slides.findIndex(s => s.id === 'pipeline') + 1")
    page.evaluate(f"() => {{ location.hash = '#/{number}/4'; }}")  # from the title: the slide enters from the side
    page.wait_for_function("() => document.getElementById('player').dataset.drawn === 'pipeline/4'")
    page.wait_for_function("() => document.querySelector('.slide.active').getAnimations().length > 0")
    page.evaluate(HOLD, f)
    page.locator(".slide.active [data-tensor='Z'] .cell.derivable").first.dispatch_event("click")
    assert page.locator(".derivation-panel:not([hidden])").count() == 1
    page.evaluate("() => document.getAnimations().forEach((a) => a.play())")
    # Z has room beside it (the panel is placed there once it has landed): no cell of Z is covered.
    assert page.evaluate(PANEL_OVER, "Z") == {"covered": 0, "own": False}
    watch.assert_clean()


def test_cells_are_keyboard_reachable(talk) -> None:
    page = talk.open(DECK)
    goto_slide(page, "pipeline", 2)
    cell = page.locator(".slide.active [data-tensor='S'] .cell.derivable").first
    cell.wait_for()
    assert cell.get_attribute("tabindex") == "0" and cell.get_attribute("role") == "button"
    cells = page.locator(".slide.active [data-tensor='S'] .cell.derivable")
    assert [c.get_attribute("tabindex") for c in cells.all()].count("0") == 1  # one Tab stop per matrix
    cell.focus()
    assert page.locator(".derivation-panel:not([hidden])").count() == 0
    page.keyboard.press("ArrowRight")  # the arrows move between cells, the talk does not step
    moved = page.evaluate("[document.activeElement.dataset.r, document.activeElement.dataset.c]")
    assert moved == [cell.get_attribute("data-r"), str(int(cell.get_attribute("data-c")) + 1)]
    assert page.locator("#player").get_attribute("data-step") == "2"
    page.keyboard.press("Enter")
    panel = page.locator(".derivation-panel:not([hidden])")
    assert panel.is_visible() and panel.get_attribute("role") == "dialog"
    assert panel.get_attribute("aria-labelledby") == "derivation-title"
    assert "q(" in page.locator("#derivation-title").inner_text()
    assert page.evaluate("document.activeElement.classList.contains('derivation-panel')")
    page.keyboard.press("Escape")
    assert page.locator(".derivation-panel").is_hidden()
    assert page.evaluate("[document.activeElement.dataset.r, document.activeElement.dataset.c]") == moved
    talk.assert_clean()


def test_chapter_one_map_cells_explain_themselves(talk) -> None:
    page = talk.open("attention-step-by-step")
    number = page.evaluate("window.attentionTalk.player.slides.findIndex(s => s.id === 'attention-map') + 1")
    assert number > 0, "chapter 1 has an attention-map slide"
    page.evaluate(f"location.hash = '#/{number}/4'")
    cell = page.locator(".slide.active [data-tensor='map'] .cell.derivable").nth(3)
    cell.wait_for()
    cell.click()
    value = panel_recomputes(page)
    assert value == pytest.approx(num(cell.locator("text").text_content()), abs=0.06)
    talk.assert_clean()


# Each weight bar's value and label: the text's own width against the room its column gives it.
BAR_TEXTS = """() => [...document.querySelectorAll('.slide.active .wb-value, .slide.active .wb-label')]
  .map((e) => [e.textContent, e.scrollWidth, e.clientWidth])"""


@pytest.mark.parametrize("slide, step", [("the-cost", 3)])
def test_bar_values_and_labels_are_never_cut(open_talk, watch, slide, step) -> None:
    """A bar's value column is as wide as its longest text (26,843,545,600 used to run off the stage)
    and its label column as its longest label ("DSA n × 2,048" used to end in an ellipsis)."""
    page = open_talk(DECK)
    goto_slide(page, slide, step)
    page.wait_for_selector(".slide.active .wb-value")
    texts = page.evaluate(BAR_TEXTS)
    assert texts and [t for t, scroll, client in texts if scroll > client + 1] == []
    watch.assert_clean()
