"""What the audience sees on the stage, read in the browser: shared by the polish browser tests
(stepping vs loading, type size, contrast, narration room, motion)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from attention_talk.model import default_path

# Chapter 3 runs on the real model: walked wherever the model is installed (always in CI).
_MODEL = default_path()
DESIGNED_DECKS = ("attention-step-by-step", "attention-walkthrough", "deepseek-attention")
DECKS = DESIGNED_DECKS + (("real-heads",) if _MODEL is not None and _MODEL.is_file() else ())

# Every text the audience can see on the active slide and in the caption bar: [text node, its element,
# its box on screen], in document order. Not seen: empty text, the visually hidden (step list,
# tensor tables, equation sources), text hidden by CSS or nearly transparent (opacity < 0.05 on it or
# an ancestor), and text with no box. Shared by VISIBLE_TEXT, panel_check.SMALL_TEXT and
# contrast_probe.CONTRAST.
SEEN_TEXTS = r"""() => {
  const roots = [document.querySelector('.slide.active'), document.querySelector('#stage .caption-bar')];
  const shown = (el) => {
    if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
      if (parseFloat(getComputedStyle(e).opacity) < 0.05) return false; }
    return true; };
  const out = [];
  for (const root of roots) {
    if (!root) continue;
    const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      if (!n.textContent.trim()) continue;
      const el = n.parentElement;
      if (!el || el.closest('script,style,.sr-only,[hidden],.steps,.equation-source')) continue;
      if (!shown(el)) continue;
      const range = document.createRange(); range.selectNodeContents(n);
      const r = range.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) continue;
      out.push([n, el, r]);
    }
  }
  return out;
}"""

# Every visible text: text, position and size on screen (rounded), its colour and, for a matrix,
# the tensor it belongs to.
VISIBLE_TEXT = rf"""() => ({SEEN_TEXTS})().map(([n, el, r]) => {{
    const cs = getComputedStyle(el), tensor = el.closest('.tensor');
    return [n.textContent.trim(), Math.round(r.left / 4), Math.round(r.top / 4), Math.round(parseFloat(cs.fontSize)),
            el instanceof SVGElement ? cs.fill : cs.color, tensor ? tensor.dataset.tensor : ''];
  }}).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)"""

# The caption bar's bottom line (controllers/corners.js), once placed for the step drawn: every pair of
# things on it that meet, a corner shown (the position line, a first visit's hint) against a word or
# button of the bar (its caption, an answer's line, the lab link), and any such word off the window.
BOTTOM_LINE = """async () => {
  const root = document.querySelector('#player');
  const until = performance.now() + 60000;
  while (!(root.dataset.corners && root.dataset.corners === root.dataset.drawn)) {
    if (performance.now() > until) throw new Error('the bottom line was never placed');
    await new Promise((r) => setTimeout(r, 10));
  }
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const name = (el) => el.id || el.className.baseVal || el.className;
  const words = [...document.querySelectorAll('#stage .caption-bar *')]
    .filter((el) => !el.childElementCount && el.checkVisibility({ visibilityProperty: true }))
    .map((el) => [name(el), el.getBoundingClientRect()]).filter(([, r]) => r.width > 1 && r.height > 1);
  const corners = ['#position', '#first-hint'].map((sel) => document.querySelector(sel))
    .filter((c) => c && c.checkVisibility({ visibilityProperty: true }));
  return [...corners.flatMap((c) => words.filter(([, r]) => meets(r, c.getBoundingClientRect()))
      .map(([n]) => `${c.id} meets ${n}`)),
    ...words.filter(([, r]) => r.left < 0 || r.right > innerWidth).map(([n]) => `${n} is off the window`)];
}"""

STEPS = """() => JSON.parse(document.getElementById('deck-data').textContent).slides
  .flatMap((s, i) => Array.from({length: s.steps}, (_, j) => `#/${i + 1}/${j + 1}`))"""

# Before any page script: remember the last frame the stage drew ("framedrawn" does not bubble,
# a capturing listener on window still hears it).
TRACK_DRAWN = """window.addEventListener('framedrawn',
  (e) => { window.__drawn = `${e.detail.slide}/${e.detail.step}`; }, true);"""

# Resolves once the stage has drawn the frame of the step named by the hash, two paints on, and the
# fonts its text asked for have loaded (a fresh page may meet the equation font only at this step).
DRAWN = """async (hash) => {
  const [slide, step] = hash.slice(2).split('/').map(Number);
  const id = JSON.parse(document.getElementById('deck-data').textContent).slides[slide - 1].id;
  await new Promise((resolve, reject) => {  // a minute at most: a step that never draws fails, never hangs
    const done = () => location.hash === hash && window.__drawn === `${id}/${step}`;
    if (done()) { resolve(); return; }
    const until = performance.now() + 60000;
    const t = setInterval(() => {
      if (done()) { clearInterval(t); resolve(); }
      else if (performance.now() > until) { clearInterval(t); reject(new Error(`${hash} was never drawn`)); }
    }, 10);
  });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await document.fonts.ready;
}"""


def deck_steps(page) -> list[str]:
    return page.evaluate(STEPS)


def track(page) -> None:
    """Call once per page, before it loads a talk."""
    page.add_init_script(TRACK_DRAWN)


@contextlib.contextmanager
def tracked_page(browser, motion: str = "reduce") -> Iterator:
    """A 1280×720 page in a browser context of its own, track()ed, closed afterwards. `motion` is
    its prefers-reduced-motion: "reduce" (the default) shows every step's final state at once."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion=motion)
    page = ctx.new_page()
    track(page)
    try:
        yield page
    finally:
        ctx.close()


def start_load(page, server_url: str, deck: str, hash_: str) -> None:
    """Start a fresh load of one step's URL (the page was track()ed) and return once the navigation
    has committed, the page still loading: several pages can load at once. finish_load waits."""
    page.goto("about:blank")  # from the same URL with another hash, goto would only change the hash
    page.goto(f"{server_url}/talk/{deck}{hash_}", wait_until="commit")


def finish_load(page, hash_: str) -> None:
    """Wait until the load started by start_load is done: the load event, the player ready, and the
    frame of `hash_` drawn."""
    page.wait_for_load_state("load")
    page.wait_for_selector("#player.ready", state="attached")
    page.evaluate(DRAWN, hash_)


def open_at(page, server_url: str, deck: str, hash_: str) -> None:
    """A fresh load of one step's URL (the page was track()ed), waiting until its frame is drawn."""
    start_load(page, server_url, deck, hash_)
    finish_load(page, hash_)


def step_forward(page, hash_: str) -> None:
    """Press → and wait until the frame of `hash_` is drawn."""
    page.keyboard.press("ArrowRight")
    page.evaluate(DRAWN, hash_)
