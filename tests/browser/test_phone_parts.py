"""A phone held upright (390 × 844) reads a step one part at a time, and no part is ever cropped
(issue 29, VISUAL.md §6): every part of every step of every deck either fits the screen's width,
scaled, or sits in a window that scrolls sideways, with the cut side faded and a scroll button on
it, and all of the part within reach of the scroll; never cut at the top or bottom; its text at
least 14 CSS px, and 16 for any text the stage draws above its smallest (index) size; words (a
note, cards, the title) wrap to the screen and never scroll. The two cases the issue names:
chapter 1's 7 × 7 map (9/4) shows all seven columns, the whole attention operation (14/2) both X
and O."""

from __future__ import annotations

import pytest
from stage_probe import DECKS, DRAWN, STEPS, TRACK_DRAWN

PHONE = {"width": 390, "height": 844}
CH1 = "attention-step-by-step"
INDEX_PX, BODY_PX = 14, 16  # lib/stage-size.js READABLE_PX, BODY_PX
SMALLEST_TEXT = 20  # stage units: the stage's index size (lib/stage-size.js SMALLEST_TEXT)

# The part shown (the player's data-reading-part) and what it draws, on screen: text (each text
# node's box), SVG shapes with paint and HTML boxes that draw (words, a control, a background or a
# border), leaving out what is hidden or fully transparent. Then the window (the scroller), how far
# it can scroll, which sides it marks as hiding more and whether each side's edge cue is shown; and
# every text's size on screen with its size on the stage.
PART = r"""() => {
  const root = document.querySelector('#player'), key = root.dataset.readingPart || '';
  const section = document.querySelector('.slide.active');
  const id = CSS.escape(key.slice(2));
  const el = section.querySelector(key === 'title' ? '.title-block' : {
    t: `.canvas > .tensor:not(.leaving)[data-tensor="${id}"]`, w: `.widget-layer > [data-widget="${id}"]`,
    n: `.note[data-note="${id}"]`}[key[0]]);
  if (!el) return {key, missing: true};
  const seen = (e) => { for (let a = e; a && a !== section; a = a.parentElement) {
    const cs = getComputedStyle(a);
    if (cs.display === 'none' || parseFloat(cs.opacity) < 0.05 || a.matches('.sr-only,[hidden]')) return false; }
    return getComputedStyle(e).visibility !== 'hidden'; };
  const boxes = [], texts = [];
  const k = section.getBoundingClientRect().width / Number(document.documentElement.dataset.stageW);
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const t = n.parentElement;
    if (!n.nodeValue.trim() || t.closest('defs') || !seen(t)) continue;
    const range = document.createRange(); range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    boxes.push(r);
    let box = t;  // MathML has no offsetWidth: its nearest HTML box's scale
    while (!(box instanceof SVGElement) && !box.offsetWidth) box = box.parentElement;
    const scale = box instanceof SVGElement ? Math.hypot(box.getScreenCTM().a, box.getScreenCTM().b)
      : box.getBoundingClientRect().width / box.offsetWidth;
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    texts.push([n.nodeValue.trim().slice(0, 24), Math.round(px * 10) / 10, Math.round(px / k * 10) / 10]);
  }
  const paint = (v) => v && v !== 'none' && v !== 'transparent' && v !== 'rgba(0, 0, 0, 0)';
  for (const e of [el, ...el.querySelectorAll('*')]) {
    if (e.closest('defs,marker,clipPath,mask') || !seen(e)) continue;
    const cs = getComputedStyle(e);
    const shape = e instanceof SVGElement && !(e instanceof SVGSVGElement || e instanceof SVGGElement);
    const draws = e instanceof SVGElement
      ? shape && (paint(cs.fill) && parseFloat(cs.fillOpacity) > 0 || paint(cs.stroke))
      : e.matches('button,input,select,img,canvas') || paint(cs.backgroundColor) || parseFloat(cs.borderTopWidth) > 0;
    const r = e.getBoundingClientRect();
    if (draws && r.width * r.height >= 1) boxes.push(r);
  }
  const v = document.querySelector('.viewport'), vr = v.getBoundingClientRect();
  const cue = (side) => { const c = v.querySelector(`.reading-edge-${side}`), b = c && c.querySelector('button');
    const shown = {opacityProperty: true, visibilityProperty: true, checkOpacity: true, checkVisibilityCSS: true};
    return Boolean(c && c.checkVisibility(shown)
      && parseFloat(getComputedStyle(c).opacity) > 0.9 && b && b.getBoundingClientRect().width >= 44); };
  return {key, type: el.dataset.type ?? '',
    left: Math.min(...boxes.map((r) => r.left)), right: Math.max(...boxes.map((r) => r.right)),
    top: Math.min(...boxes.map((r) => r.top)), bottom: Math.max(...boxes.map((r) => r.bottom)),
    view: {left: vr.left, right: vr.right, top: vr.top, bottom: vr.bottom, scrollLeft: v.scrollLeft,
           scrollWidth: v.scrollWidth, clientWidth: v.clientWidth},
    sides: v.dataset.hiddenSides ?? null, cueLeft: cue('left'), cueRight: cue('right'), texts,
    pageWidth: document.documentElement.scrollWidth, screenWidth: document.documentElement.clientWidth};
}"""

# Every part of the step, in turn (the on-screen "1 of 3 ›" button shows the next): PART of each.
EVERY_PART = rf"""() => {{
  const part = {PART}, button = document.querySelector('.onscreen-part');
  const count = button.hidden ? 1
    : Number(button.querySelector('[aria-hidden]').textContent.split(' of ')[1].split(' ')[0]);
  const out = [];
  for (let i = 0; i < count; i++) {{ out.push(part()); if (i + 1 < count) button.click(); }}
  return out;
}}"""


def problems(p: dict) -> list[str]:
    """What is wrong with one part as shown (empty: it fits, or it scrolls and says so)."""
    if p.get("missing"):
        return ["its element is not drawn"]
    out, v, w = [], p["view"], p["screenWidth"]
    if p["top"] < v["top"] - 1 or p["bottom"] > v["bottom"] + 1:
        out.append(f"cut at the top or bottom: {p['top']:.0f}–{p['bottom']:.0f} in {v['top']:.0f}–{v['bottom']:.0f}")
    if p["pageWidth"] > w:
        out.append(f"the page scrolls sideways ({p['pageWidth']} > {w})")
    start = v["left"] - v["scrollLeft"]  # where the window's scroll range begins, on screen
    if p["left"] < start - 1 or p["right"] > start + v["scrollWidth"] + 1:
        out.append(f"out of the scroll's reach: {p['left']:.0f}–{p['right']:.0f}, range {start:.0f}+{v['scrollWidth']}")
    for side, cut, cue in (("left", p["left"] < -1, p["cueLeft"]), ("right", p["right"] > w + 1, p["cueRight"])):
        if cut and not (side in (p["sides"] or "").split() and cue):
            out.append(f"cut on the {side} with no edge cue (sides {p['sides']!r}, cue {cue})")
    words = p["key"] == "title" or p["key"].startswith("n:") or p["type"] == "cards"
    if words and v["scrollWidth"] > v["clientWidth"] + 1:
        out.append("words that scroll sideways instead of wrapping to the screen")
    for text, px, units in p["texts"]:
        floor = INDEX_PX if units <= SMALLEST_TEXT + 0.5 else BODY_PX
        if px < floor - 0.05:
            out.append(f"{text!r} at {px} px (under {floor})")
    return out


@pytest.fixture(scope="module")
def phone_context(browser):
    """A phone held upright, no motion: a walk through every step stays quick (the named cases
    below step with motion)."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, reduced_motion="reduce")
    yield context
    context.close()


def _open(page, base: str, deck: str, hash_: str) -> None:
    page.add_init_script(TRACK_DRAWN)
    page.goto(f"{base}/talk/{deck}{hash_}")
    page.wait_for_selector("#player.ready", state="attached")
    page.evaluate(DRAWN, hash_)


def _go(page, hash_: str) -> None:
    page.evaluate("h => { location.hash = h; }", hash_)
    page.evaluate(DRAWN, hash_)


@pytest.mark.parametrize("deck", DECKS)
def test_every_part_fits_or_scrolls_with_an_edge(phone_context, server_url, deck) -> None:
    page = phone_context.new_page()
    _open(page, server_url, deck, "#/1/1")
    assert page.evaluate("document.documentElement.classList.contains('reading')")
    bad, shown, scrolled = [], 0, 0
    for hash_ in page.evaluate(STEPS):
        _go(page, hash_)
        for i, p in enumerate(page.evaluate(EVERY_PART)):
            shown += 1
            scrolled += p["view"]["scrollWidth"] > p["view"]["clientWidth"] + 1
            bad += [f"{hash_} part {i + 1} {p['key']}: {why}" for why in problems(p)]
    page.close()
    assert not bad, "\n".join(bad)
    assert shown > 20 and 0 < scrolled < shown  # it did walk parts, some scroll and most do not


@pytest.fixture
def moving_phone(browser):
    """A phone held upright with motion on: the parts are measured while their step moves in."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    yield context.new_page()
    context.close()


SETTLED = """async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); await frame();
  for (const until = performance.now() + 5000; performance.now() < until; await frame()) {
    if (!document.getAnimations().some((a) => a.playState === 'running' || a.pending)) break;
  }
  await frame();
}"""

# The on-screen box of every text of the shown part that equals one of `words` (SVG or HTML).
WORDS = r"""(words) => {
  const section = document.querySelector('.slide.active'), out = {};
  for (const t of section.querySelectorAll('text, .widget *')) {
    const w = t.textContent.trim();
    if (!words.includes(w) || t.children.length) continue;
    const r = t.getBoundingClientRect();
    if (r.width > 0) (out[w] ??= []).push({left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  }
  return out;
}"""


def _scroll_to_end(page) -> int:
    """Tap the right edge's scroll button until the window has no more on the right; returns taps."""
    taps = 0
    while "right" in (page.evaluate("document.querySelector('.viewport').dataset.hiddenSides") or ""):
        assert taps < 10, "the scroll button never reached the end"
        box = page.locator(".reading-edge-right .reading-scroll").bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function("""(left) => { const v = document.querySelector('.viewport');
            return v.scrollLeft > left + 1 || v.scrollLeft >= v.scrollWidth - v.clientWidth - 1; }""",
                               arg=page.evaluate("document.querySelector('.viewport').scrollLeft"))
        page.evaluate(SETTLED)
        taps += 1
    page.evaluate(SCROLL_STILL)  # the smooth scroll is over, so the edges' cues have begun their fade
    page.evaluate(SETTLED)  # and the fade is over
    return taps


# Resolves once the window's scroll position has not moved for 3 frames (a smooth scroll is no
# animation that getAnimations() lists): a condition, not a fixed wait.
SCROLL_STILL = """async () => {
  const v = document.querySelector('.viewport'), frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  let last = v.scrollLeft, same = 0;
  for (const until = performance.now() + 10000; same < 3 && performance.now() < until; ) {
    await frame();
    same = v.scrollLeft === last ? same + 1 : 0;
    last = v.scrollLeft;
  }
}"""


def _inside(box: dict, width: int) -> bool:
    return box["left"] >= -1 and box["right"] <= width + 1


def test_ch1_map_shows_all_seven_columns(moving_phone, server_url) -> None:
    """9/4 (stepped into from 9/3, with motion): the 7 × 7 map scrolls; at first its row labels and
    first columns show, the right edge fades with a scroll button; scrolled, the last columns show;
    every column is within reach and each is, at some point, wholly on screen."""
    page = moving_phone
    _open(page, server_url, CH1, "#/9/3")
    page.keyboard.press("ArrowRight")
    page.evaluate(DRAWN, "#/9/4")
    page.evaluate(SETTLED)
    assert page.evaluate("document.querySelector('#player').dataset.readingPart") == "t:map"
    cols = """() => [...document.querySelectorAll('.slide.active .tensor[data-tensor="map"] .axis-label.col')]
        .map((e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right}; })"""
    first = page.evaluate(cols)
    assert len(first) == 7
    p = page.evaluate(PART)
    assert problems(p) == []
    assert p["sides"] == "right" and p["cueRight"] and not p["cueLeft"]
    assert _inside(first[0], PHONE["width"]) and not _inside(first[-1], PHONE["width"])
    seen = {i for i, c in enumerate(first) if _inside(c, PHONE["width"])}
    assert _scroll_to_end(page) >= 1
    last = page.evaluate(cols)
    seen |= {i for i, c in enumerate(last) if _inside(c, PHONE["width"])}
    assert seen == set(range(7))
    p = page.evaluate(PART)
    assert problems(p) == [] and p["sides"] == "left" and p["cueLeft"] and not p["cueRight"]


def test_ch1_whole_operation_shows_x_and_o(moving_phone, server_url) -> None:
    """14/2: the whole attention operation is wider than a phone: it opens at its input X, wholly
    shown, with the right edge's cue; scrolled to the end, its output O is wholly shown."""
    page = moving_phone
    _open(page, server_url, CH1, "#/14/1")
    page.keyboard.press("ArrowRight")
    page.evaluate(DRAWN, "#/14/2")
    page.evaluate(SETTLED)
    p = page.evaluate(PART)
    assert p["key"].startswith("w:") and problems(p) == []
    at_start = page.evaluate(WORDS, ["X", "O"])
    assert len(at_start["X"]) == 1 and _inside(at_start["X"][0], PHONE["width"]), at_start
    assert not _inside(at_start["O"][0], PHONE["width"]) and p["cueRight"]
    _scroll_to_end(page)
    at_end = page.evaluate(WORDS, ["X", "O"])
    assert _inside(at_end["O"][0], PHONE["width"]), at_end
    assert problems(page.evaluate(PART)) == []
