"""A first visit says how to advance (controllers/first-hint.js): one small line on the step the
visitor lands on, in the corner under the drawing, text of at least 20 CSS px at 1280×720, covering
nothing drawn and leaving the caption where it is; gone at the first step change and on later visits;
never on a follower's page, an embedded talk, the speaker view, the print view or the PNG export."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from stage_probe import BOTTOM_LINE, DRAWN, TRACK_DRAWN

from attention_talk.export.browser import SEEN_HINT

DECK = "attention-step-by-step"
WALK = "attention-walkthrough"
HINT = "→ or Space to advance · ? for keys"

# The hint's box, the caption's, and every drawn thing of the active slide it meets: SVG shapes and
# text, and HTML elements that hold text of their own (the title, notes, widgets' labels).
GEOMETRY = """() => {
  const hint = document.querySelector('#first-hint');
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; };
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const h = box(hint);
  const drawn = [...document.querySelectorAll('.slide.active *')].filter((el) => {
    if (el.closest('.steps, .sr-only')) return false;
    const shape = el instanceof SVGGraphicsElement && !(el instanceof SVGSVGElement) && !(el instanceof SVGGElement);
    const words = !(el instanceof SVGElement)
      && [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!shape && !words) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden' && meets(h, r);
  }).map((el) => el.tagName + '.' + (el.className.baseVal ?? el.className));
  return {hint: h, caption: box(document.querySelector('#caption')), drawn,
          size: parseFloat(getComputedStyle(hint).fontSize), text: hint.textContent,
          visible: hint.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})};
}"""


CAPTION_BOX = """() => { const r = document.querySelector('#caption').getBoundingClientRect();
  return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width, height: r.height}; }"""


@contextlib.contextmanager
def first_visit(browser, width: int = 1280, height: int = 720, init: str | None = None) -> Iterator:
    """A browser context that has never seen the talk (its own localStorage)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, reduced_motion="reduce")
    page = ctx.new_page()
    page.add_init_script(TRACK_DRAWN)
    if init:
        page.add_init_script(init)
    try:
        yield page
    finally:
        ctx.close()


def open_at(page, url: str, hash_: str) -> None:
    page.goto(f"{url}{hash_}")
    page.wait_for_selector("#player.ready", state="attached")
    page.evaluate(DRAWN, hash_)


def hint_count(page) -> int:
    return page.locator("#first-hint").count()


# 9/4: a step with a lab link in the bar's lower left corner (the hint goes beside it); 9/3, 8/2: an
# answer's line (opened by its link: a skip) under the caption, which the hint may yield to
@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize(("deck", "hash_", "may_yield"), [
    (DECK, "#/1/1", False), (WALK, "#/1/1", False), (DECK, "#/9/4", False), (WALK, "#/5/3", False),
    (DECK, "#/9/3", True), (WALK, "#/8/2", True)])
def test_a_first_visit_says_how_to_advance_without_covering_anything(browser, server_url, size, deck, hash_,
                                                                      may_yield) -> None:
    with first_visit(browser, *size) as page:
        open_at(page, f"{server_url}/talk/{deck}", hash_)
        page.wait_for_selector("#first-hint", state="attached")
        assert page.evaluate(BOTTOM_LINE) == []  # nothing on the bar's bottom line covers another
        shown = page.evaluate(GEOMETRY)
        yields = page.eval_on_selector("#first-hint", "el => el.classList.contains('yields')")
        assert shown["text"] == HINT
        assert shown["visible"] or (may_yield and yields), (shown, yields)  # no room left: it gives way
        if not shown["visible"]:
            return
        assert shown["size"] >= 20  # CSS px, outside the scaled stage: the size it is drawn at
        assert shown["drawn"] == [], shown["drawn"]  # covers nothing the slide draws
        hint, caption = shown["hint"], shown["caption"]
        assert hint["top"] >= caption["bottom"] or hint["right"] <= caption["left"]  # nor the caption
        assert hint["left"] >= 0 and hint["right"] <= size[0] and hint["bottom"] <= size[1]
        page.evaluate("document.querySelector('#first-hint').remove()")
        assert page.evaluate(CAPTION_BOX) == caption  # the caption stays where it was without the hint


def test_the_hint_goes_at_the_first_step_and_stays_gone(browser, server_url) -> None:
    with first_visit(browser) as page:
        open_at(page, f"{server_url}/talk/{DECK}", "#/1/1")
        page.wait_for_selector("#first-hint")
        page.keyboard.press("ArrowRight")
        page.evaluate(DRAWN, "#/2/1")
        assert hint_count(page) == 0
        page.keyboard.press("ArrowLeft")  # back on the first step: not again
        page.evaluate(DRAWN, "#/1/1")
        assert hint_count(page) == 0
        page.reload()  # nor on the next visit
        page.wait_for_selector("#player.ready", state="attached")
        page.evaluate("window.attentionTalk.ready")
        assert hint_count(page) == 0


def test_no_hint_where_the_visitor_does_not_step(browser, server_url) -> None:
    """A follower (the presenter steps), an embedded talk (its host page frames it), the speaker view,
    the print view, and the PNG export (which marks the hint as seen): none shows it."""
    with first_visit(browser) as page:
        code = page.request.post(f"{server_url}/api/rooms", data={"deck": DECK}).json()["code"]
        for url in (f"{server_url}/join/{code}", f"{server_url}/talk/{DECK}?embed=1"):
            page.goto(url)
            page.wait_for_selector("#player.ready", state="attached")
            page.evaluate("window.attentionTalk.ready")
            assert hint_count(page) == 0, url
        page.goto(f"{server_url}/talk/{DECK}/presenter")
        page.wait_for_selector("#presenter.ready", state="attached")
        page.evaluate("window.attentionTalk.ready")
        assert hint_count(page) == 0
        page.goto(f"{server_url}/talk/{DECK}/print")
        page.wait_for_function("() => document.documentElement.dataset.ready === '1'")
        assert hint_count(page) == 0 and HINT not in page.content()
        page.goto(f"{server_url}/talk/{DECK}")  # still a first visit: the talk itself shows it
        page.wait_for_selector("#first-hint")
    with first_visit(browser, init=SEEN_HINT) as page:
        open_at(page, f"{server_url}/talk/{DECK}", "#/1/1")
        page.evaluate("window.attentionTalk.ready")
        assert hint_count(page) == 0
