"""Touch screens, phones and text size, in real Chromium with real touch input (CDP
Input.dispatchTouchEvent and Playwright's touchscreen in a has_touch context, never synthetic
PointerEvents): swipes step both ways and never leave the page; the on-screen controls stay out of
sight until the mouse moves or a finger touches; a phone held upright reads a part at a time with
no text under 14 CSS px; a phone on its side keeps the stage; + and - change the text size."""

from __future__ import annotations

import pytest
from axe_probe import serious_violations
from stage_probe import DRAWN, TRACK_DRAWN

from attention_talk.web.keys import KEYS

DECK = "attention-step-by-step"
WALK = "attention-walkthrough"
NO_TEXT_UNDER = 14  # CSS px, at 390 × 844

# Every visible text: the active slide's inside the reading window (or the whole stage when not
# reading), the caption bar and the on-screen controls. Its size on screen is the computed font size
# times every scale on the way (the zoomed stage, a view's own scaling): getScreenCTM for SVG, the
# drawn width over the laid-out width for HTML.
TEXT_SIZES = r"""() => {
  const win = document.querySelector('.viewport').getBoundingClientRect();
  const inside = (r, box) => r.left + r.width / 2 > box.left && r.left + r.width / 2 < box.right
    && r.top + r.height / 2 > box.top && r.top + r.height / 2 < box.bottom;
  const screen = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  const out = [];
  for (const sel of ['.slide.active', '.caption-bar', '.onscreen']) {
    const root = document.querySelector(sel);
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      const t = n.textContent.trim(), el = n.parentElement;
      if (!t || el.closest('script,style,.sr-only,[hidden],.steps,.equation-source')) continue;
      if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || !inside(r, screen)) continue;
      if (sel === '.slide.active' && !inside(r, win)) continue;  // cut off by the reading window
      let scale = 1;
      if (el instanceof SVGElement) { const m = el.getScreenCTM(); scale = Math.hypot(m.a, m.b); }
      else if (el.offsetWidth) scale = el.getBoundingClientRect().width / el.offsetWidth;
      out.push([t.slice(0, 30), Math.round(parseFloat(getComputedStyle(el).fontSize) * scale * 100) / 100, sel]);
    }
  }
  return out;
}"""

# Where the part the step is about (the player's data-reading-part) is drawn on screen: its words and
# shapes (a widget's box can be wider and taller than its drawing, which the window is cut to).
FOCUS_RECT = r"""() => {
  const key = document.querySelector('#player').dataset.readingPart || '';
  const [kind, id] = key === 'title' ? ['', ''] : [key.slice(0, 1), key.slice(2)];
  const section = document.querySelector('.slide.active');
  const sel = {t: `.canvas > .tensor:not(.leaving)[data-tensor="${CSS.escape(id)}"]`,
               w: `[data-widget="${CSS.escape(id)}"]`, n: `.note[data-note="${CSS.escape(id)}"]`}[kind]
              || '.title-block';
  const el = section.querySelector(sel), boxes = [];
  const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    if (!n.nodeValue.trim() || n.parentElement.closest('.sr-only,[hidden],defs')) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const b = range.getBoundingClientRect();
    if (b.width > 0 && b.height > 0) boxes.push(b);
  }
  for (const e of el.querySelectorAll('rect, circle, ellipse, line, path, polygon, button, input')) {
    const b = e.getBoundingClientRect();
    if (b.width * b.height >= 1 && !e.closest('defs') && e.checkVisibility({checkOpacity: true})) boxes.push(b);
  }
  if (!boxes.length) boxes.push(el.getBoundingClientRect());
  const r = {left: Math.min(...boxes.map((b) => b.left)), top: Math.min(...boxes.map((b) => b.top)),
             right: Math.max(...boxes.map((b) => b.right)), bottom: Math.max(...boxes.map((b) => b.bottom))};
  r.width = r.right - r.left;
  return {key, left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,
          vw: document.documentElement.clientWidth, vh: innerHeight};
}"""

SETTLED = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); await frame();
  for (const until = performance.now() + 3000; performance.now() < until; await frame()) {
    if (!document.getAnimations().some((a) => a.playState === 'running' || a.pending)) return;
  }
}"""


def _context(browser, width: int, height: int, **extra):
    return browser.new_context(viewport={"width": width, "height": height}, has_touch=True, **extra)


def _open(page, base: str, deck: str, hash_: str):
    page.goto(f"{base}/talk/{deck}{hash_}")
    page.wait_for_selector("#player.ready", state="attached")
    _reach(page, hash_)
    return page


def _go(page, hash_: str) -> None:
    page.evaluate("h => { location.hash = h; }", hash_)
    _reach(page, hash_)


def _reach(page, hash_: str) -> None:
    """Wait until the step of `hash_` is drawn and its motion has ended (a touch sent while the page
    is still moving to a step can be lost on the way in)."""
    page.evaluate(DRAWN, hash_)
    page.evaluate(SETTLED)


def _swipe(cdp, x0: float, x1: float, y0: float = 300, y1: float | None = None) -> None:
    """One finger, pressed at (x0, y0), moved in 8 steps to (x1, y1), lifted: real touch input."""
    y1 = y0 if y1 is None else y1
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 9):
        x, y = x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _where(page) -> tuple[str, int, str]:
    return tuple(page.evaluate("[location.hash, history.length, location.pathname]"))


def _shown(page) -> bool:
    return page.evaluate("""() => { const el = document.querySelector('.onscreen');
        return getComputedStyle(el).visibility === 'visible' && !el.classList.contains('idle'); }""")


@pytest.fixture(scope="module")
def touch_page(browser, server_url):
    """A laptop-sized touch screen: the stage as a projector shows it."""
    context = _context(browser, 1280, 720)
    page = context.new_page()
    page.add_init_script(TRACK_DRAWN)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield _open(page, server_url, DECK, "#/9/3"), errors
    context.close()


def test_real_swipes_step_both_ways_and_never_leave(touch_page) -> None:
    page, errors = touch_page
    styles = page.evaluate("""() => [getComputedStyle(document.querySelector('.viewport')).touchAction,
        getComputedStyle(document.documentElement).overscrollBehaviorX]""")
    assert styles == ["pan-y pinch-zoom", "none"]
    cdp = page.context.new_cdp_session(page)
    hash0, length, path = _where(page)
    _swipe(cdp, 900, 400)  # to the left: next
    _reach(page, "#/9/4")
    _swipe(cdp, 300, 900)  # to the right: previous, never the browser's Back
    _reach(page, "#/9/3")
    _swipe(cdp, 900, 400)
    _reach(page, "#/9/4")
    _swipe(cdp, 900, 400)
    _reach(page, "#/9/5")
    _swipe(cdp, 640, 660, 150, 500)  # mostly downwards: no swipe
    _swipe(cdp, 640, 620)  # too short: no swipe
    page.evaluate(SETTLED)
    cdp.detach()
    assert _where(page) == ("#/9/5", length, path)
    assert hash0 == "#/9/3"
    assert errors == []


def test_onscreen_controls_wake_on_touch_and_step(touch_page) -> None:
    page, errors = touch_page
    _go(page, "#/9/3")
    page.keyboard.press("Shift")  # a key (a clicker) puts them away
    assert not _shown(page)
    page.touchscreen.tap(1200, 300)  # a touch on the stage shows them
    assert _shown(page)
    buttons = page.evaluate("""() => [...document.querySelectorAll('.onscreen button')]
        .filter((b) => !b.hidden).map((b) => { const r = b.getBoundingClientRect();
          return {name: b.textContent.trim(), w: r.width, h: r.height, bottom: r.bottom}; })""")
    caption_top = page.evaluate("document.querySelector('.caption').getBoundingClientRect().top")
    assert [b["w"] >= 44 and b["h"] >= 44 for b in buttons] == [True] * 4
    assert max(b["bottom"] for b in buttons) < caption_top  # above the caption, never over it
    assert serious_violations(page) == []  # the controls shown
    next_box = page.locator(".onscreen-next").bounding_box()
    page.touchscreen.tap(next_box["x"] + next_box["width"] / 2, next_box["y"] + next_box["height"] / 2)
    _reach(page, "#/9/4")
    assert page.get_by_role("button", name="Next step").count() == 1
    page.get_by_role("button", name="Previous step").click()
    _reach(page, "#/9/3")
    page.keyboard.press("ArrowRight")
    assert not _shown(page)
    assert errors == []


def test_mouse_move_shows_the_controls(page, server_url, watch) -> None:
    page.add_init_script(TRACK_DRAWN)
    _open(page, server_url, DECK, "#/2/1")
    assert not _shown(page)
    page.mouse.move(400, 300)
    page.mouse.move(420, 310)
    assert _shown(page)
    page.get_by_role("button", name="Next step").click()
    page.evaluate(DRAWN, "#/2/2")
    page.keyboard.press("ArrowLeft")
    page.evaluate(DRAWN, "#/2/1")
    assert not _shown(page)
    watch.assert_clean()


@pytest.fixture(scope="module")
def phone(browser, server_url):
    """A phone held upright: 390 × 844, mobile viewport, touch."""
    context = _context(browser, 390, 844, is_mobile=True)
    page = context.new_page()
    page.add_init_script(TRACK_DRAWN)
    yield page
    context.close()


# A handful of steps of each deck: a title, matrices, widgets (the stack diagram, a histogram, the
# growth slider, the pipeline, the head picker, FlashAttention's tiles), notes.
PHONE_STEPS = {DECK: ["#/1/1", "#/2/1", "#/9/3", "#/10/2", "#/16/1"],
               WALK: ["#/2/4", "#/5/3", "#/6/4", "#/8/6", "#/9/4"]}


@pytest.mark.parametrize("deck", [DECK, WALK])
def test_phone_upright_reads_a_part_at_a_time(phone, server_url, deck) -> None:
    page = phone
    steps = PHONE_STEPS[deck]
    _open(page, server_url, deck, steps[0])
    assert page.evaluate("document.documentElement.classList.contains('reading')")
    for hash_ in steps:
        _go(page, hash_)
        sizes = page.evaluate(TEXT_SIZES)
        small = [s for s in sizes if s[1] < NO_TEXT_UNDER]
        assert not small, (hash_, small)
        assert any(where == ".slide.active" for _, _, where in sizes), (hash_, "the window shows the part")
        r = page.evaluate(FOCUS_RECT)
        assert r["key"], hash_
        assert r["top"] >= -1 and r["bottom"] <= r["vh"], (hash_, r)
        if r["width"] <= r["vw"]:
            assert r["left"] >= -1 and r["right"] <= r["vw"] + 1, (hash_, r)
        else:  # wider than the phone: it fills the screen's width and scrolls sideways
            assert r["left"] <= 20 and r["right"] >= r["vw"] - 1, (hash_, r)
        caption = page.evaluate("document.querySelector('.caption').getBoundingClientRect().bottom")
        assert caption <= r["top"] + 10, (hash_, "the caption is on top")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the page never scrolls sideways


def test_phone_part_switcher_and_swipes(phone, server_url) -> None:
    page = phone
    _open(page, server_url, DECK, "#/9/3")
    part = page.locator(".onscreen-part")
    assert part.is_visible()
    assert serious_violations(page) == []  # reading on a phone: bars, buttons, the window
    assert page.evaluate("document.querySelector('#player').dataset.readingPart") == "t:map"
    k, n = (int(x) for x in part.locator("[aria-hidden]").inner_text().rstrip(" ›").split(" of "))
    assert n == 4  # the map is the part this step is about, one of its four
    assert page.get_by_role("button", name=f"{k} of 4: attention map Q·Kᵀ. Show the next part").count() == 1
    part.tap()
    page.evaluate(SETTLED)
    assert page.evaluate("document.querySelector('#player').dataset.readingPart") != "t:map"
    assert part.locator("[aria-hidden]").inner_text() == f"{k % n + 1} of 4 ›"
    cdp = page.context.new_cdp_session(page)
    _, length, path = _where(page)
    _swipe(cdp, 330, 60, 400)
    _reach(page, "#/9/4")
    _swipe(cdp, 60, 330, 400)
    _reach(page, "#/9/3")
    cdp.detach()
    assert _where(page) == ("#/9/3", length, path)


def test_phone_on_its_side_keeps_the_stage(browser, server_url) -> None:
    context = _context(browser, 844, 390, is_mobile=True)
    page = context.new_page()
    page.add_init_script(TRACK_DRAWN)
    _open(page, server_url, WALK, "#/6/4")
    assert not page.evaluate("document.documentElement.classList.contains('reading')")
    stage = page.locator("#stage").bounding_box()
    assert stage["height"] == pytest.approx(390, abs=1) and stage["x"] >= 0 and stage["x"] + stage["width"] <= 845
    context.close()


CAPTION_PX = """() => { const el = document.querySelector('.caption');
  const scale = el.getBoundingClientRect().width / el.offsetWidth;
  return Math.round(parseFloat(getComputedStyle(el).fontSize) * scale * 100) / 100; }"""


def test_text_size_keys_and_buttons_enlarge_the_caption(page, server_url, watch) -> None:
    assert {"textBigger", "textSmaller", "textReset"} <= {k["action"] for k in KEYS}
    page.add_init_script(TRACK_DRAWN)
    _open(page, server_url, DECK, "#/9/3")
    assert page.evaluate(CAPTION_PX) == 34  # 42.5 stage px at 1280 × 720 (lib/type.js TYPE.caption)
    page.keyboard.press("+")
    page.keyboard.press("+")
    page.evaluate(SETTLED)
    assert page.evaluate("document.documentElement.dataset.textSize") == "1.5"
    assert page.evaluate(CAPTION_PX) == 48
    assert page.evaluate("document.documentElement.classList.contains('reading')")  # scrolls, not cut
    assert page.evaluate("localStorage.getItem('attention-talk-text-size')") == "1.5"
    page.reload()
    page.wait_for_selector("#player.ready", state="attached")
    _reach(page, "#/9/3")
    assert page.evaluate(CAPTION_PX) == 48  # kept for the next visit
    page.keyboard.press("-")
    assert page.evaluate(CAPTION_PX) == 40
    page.get_by_role("button", name="Larger text").click()
    assert page.evaluate(CAPTION_PX) == 48
    page.keyboard.press("0")
    assert page.evaluate(CAPTION_PX) == 34
    assert not page.evaluate("document.documentElement.classList.contains('reading')")
    watch.assert_clean()


# Points over an open panel (a grid of 7 × 9, inside its border) that something else covers: the
# element drawn on top there is not the panel or inside it.
COVERED = """(sel) => {
  const panel = document.querySelector(sel), r = panel.getBoundingClientRect(), bad = [];
  for (let i = 1; i < 8; i++) for (let j = 1; j < 10; j++) {
    const x = r.left + r.width * i / 8, y = r.top + r.height * j / 10;
    const top = document.elementFromPoint(x, y);
    if (top && !panel.contains(top)) bad.push([Math.round(x), Math.round(y), top.className.baseVal ?? top.className]);
  }
  return bad;
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
def test_onscreen_controls_never_cover_an_open_panel(browser, server_url, size) -> None:
    """A click on a cell opens its derivation panel and wakes the on-screen controls (the mouse
    moved); wherever the panel opens, they stand beside it or out of sight, never over its lines
    (the Σ of a softmax weight was under A− and A+). The help overlay, likewise."""
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce")
    page = ctx.new_page()
    page.add_init_script(TRACK_DRAWN)
    checked = set()
    for deck, hash_ in ((DECK, "#/12/1"), (DECK, "#/9/3"), (WALK, "#/6/4")):
        _open(page, server_url, deck, hash_)
        cells = page.locator(".slide.active .cell.derivable")
        count = cells.count()
        assert count > 0, hash_
        for i in range(0, count, max(1, count // 10)):
            box = cells.nth(i).bounding_box()
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_selector(".derivation-panel:not([hidden])")
            page.mouse.move(box["x"] + 3, box["y"] + 3)
            awake = page.evaluate("!document.querySelector('.onscreen').classList.contains('idle')")
            assert awake, (hash_, i)  # shown, or out of sight only where no spot is free
            spot = page.evaluate("document.querySelector('.onscreen').dataset.spot")
            assert page.evaluate(COVERED, ".derivation-panel:not([hidden])") == [], (deck, hash_, i, spot)
            checked.add(spot)
            page.keyboard.press("Escape")  # closes the panel; a key also puts the controls to sleep
            page.wait_for_selector(".derivation-panel", state="hidden")
    assert {"center", "left"} <= checked or {"center", "right"} <= checked  # they did have to move
    page.keyboard.press("?")
    page.wait_for_selector("#help:not([hidden])")
    page.mouse.move(size[0] / 2, size[1] - 150)
    page.mouse.move(size[0] / 2 + 5, size[1] - 145)
    assert page.evaluate(COVERED, "#help") == []
    ctx.close()
