"""Continuity across slides (VISUAL.md §3, static/js/views/continuity.js), in real Chromium:

- Every slide change of every deck, recorded as a CDP screencast of the page: no frame in which the
  stage above the caption bar holds only background (ink measured against the stage's background
  colour, as the stepscan tool does). The old slide leaves while the new one enters.
- The changes where two frames show the same object (chapter 1: X, the query row, the map; chapter 2:
  the embedding rows; chapter 3: a head's map and its grid cell): a copy of the object, measured in
  successive animation frames, starts where the old one was and moves monotonically to where the
  new one is.
- With reduced motion the same changes start no animation and draw what loading the URL draws; a
  key pressed mid-flight lands where loading that step's URL does, forwards and back, and nothing is
  left hidden or in flight; the speaker view's previews never get a traveller."""

from __future__ import annotations

import contextlib
import itertools
import json
import urllib.request

import pytest
from stage_probe import DECKS, VISIBLE_TEXT, open_at, tracked_page
from url_probe import wait_hash

# Slower animations (CDP Animation.setPlaybackRate) give a loaded machine's few frames a chance to
# land inside each motion; the choreography is the same, only longer.
SLOW = 0.5

# Steps per slide, from the page's manifest.
SLIDE_STEPS = "() => JSON.parse(document.getElementById('deck-data').textContent).slides.map((s) => s.steps)"

# Resolves once the stage has drawn the step of `hash` and no animation runs (10 s at most).
SETTLED = """async (hash) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const [slide, step] = hash.slice(2).split('/').map(Number);
  const id = JSON.parse(document.getElementById('deck-data').textContent).slides[slide - 1].id;
  const until = performance.now() + 10000;
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (performance.now() < until && (window.__drawn !== `${id}/${step}` || moving())) await frame();
  await frame();
  return window.__drawn === `${id}/${step}` && !moving();
}"""

# The part of the stage the slides draw in (above the caption bar), in CSS px, and its background.
REGION = """() => {
  const s = document.getElementById('stage').getBoundingClientRect();
  const bar = document.querySelector('#stage .caption-bar').getBoundingClientRect();
  const bg = getComputedStyle(document.getElementById('stage')).backgroundColor.match(/\\d+/g).map(Number);
  return { x: s.left, y: s.top, w: s.width, h: Math.min(bar.top, s.bottom) - s.top, vw: innerWidth, bg };
}"""

# In a blank page: each PNG frame's share of ink in the region (pixels whose colour differs from the
# background by more than 30 summed over R, G, B).
INK = """async ({ frames, region }) => {
  const out = [];
  for (const b64 of frames) {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const k = img.width / region.vw;
    const c = new OffscreenCanvas(img.width, img.height), g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const x = Math.round(region.x * k), y = Math.round(region.y * k);
    const w = Math.max(1, Math.round(region.w * k)), h = Math.max(1, Math.round(region.h * k));
    const d = g.getImageData(x, y, w, h).data, [r0, g0, b0] = region.bg;
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i] - r0) + Math.abs(d[i + 1] - g0) + Math.abs(d[i + 2] - b0) > 30) ink++;
    }
    out.push(ink / (w * h));
  }
  return out;
}"""

EMPTY = 0.002  # less ink than this: only background (a slide's title alone covers ~1 %)


_WARM: set[str] = set()


@pytest.fixture(autouse=True)
def built(request, server_url):
    """Chapter 3 is built from the real model: loaded, and every slide's frames asked for once,
    with a generous ceiling, before a page waits for them."""
    deck = request.node.callspec.params.get("deck") if hasattr(request.node, "callspec") else None
    if deck == "real-heads" and deck not in _WARM:
        request.getfixturevalue("real_model")
        with urllib.request.urlopen(f"{server_url}/api/decks/{deck}", timeout=600) as answer:
            slides = json.load(answer)["slides"]
        for slide in slides:
            urllib.request.urlopen(f"{server_url}/api/decks/{deck}/slides/{slide['id']}/frames", timeout=600).read()
        _WARM.add(deck)


class Screencast:
    """The page's frames as PNGs, as Chromium paints them (CDP Page.startScreencast), kept from
    `mark()` on."""

    def __init__(self, page, rate: float = SLOW):
        self.cdp = page.context.new_cdp_session(page)
        self.frames: list[str] = []
        self.cdp.on("Page.screencastFrame", self._frame)
        self.cdp.send("Animation.enable")
        self.cdp.send("Animation.setPlaybackRate", {"playbackRate": rate})
        self.cdp.send("Page.startScreencast", {"format": "png", "maxWidth": 480, "maxHeight": 270, "everyNthFrame": 1})

    def _frame(self, event) -> None:
        self.frames.append(event["data"])
        with contextlib.suppress(Exception):  # the page may close under its last frame
            self.cdp.send("Page.screencastFrameAck", {"sessionId": event["sessionId"]})

    def mark(self) -> None:
        self.frames = []

    def stop(self) -> None:
        self.cdp.send("Page.stopScreencast")


def go(page, hash_: str) -> None:
    """Jump to a step by its URL's hash and wait until it is drawn and still."""
    page.evaluate("h => { location.hash = h; }", hash_)
    wait_hash(page, hash_)
    assert page.evaluate(SETTLED, hash_), f"{hash_} never settled"


@pytest.mark.parametrize("deck", DECKS)
def test_no_slide_change_shows_an_empty_stage(browser, server_url, deck) -> None:
    with tracked_page(browser, motion="no-preference") as page:
        bench = page.context.new_page()
        open_at(page, server_url, deck, "#/1/1")
        steps = page.evaluate(SLIDE_STEPS)
        cast = Screencast(page)
        emptiest, recorded = {}, 0
        for i in range(len(steps) - 1):
            last, first = f"#/{i + 1}/{steps[i]}", f"#/{i + 2}/1"
            go(page, last)
            region = page.evaluate(REGION)
            cast.mark()
            page.keyboard.press("ArrowRight")
            wait_hash(page, first)
            assert page.evaluate(SETTLED, first), f"{first} never settled"
            frames = cast.frames
            inks = bench.evaluate(INK, {"frames": frames, "region": region}) if frames else []
            recorded += len(inks)
            if not inks or min(inks) < EMPTY:
                emptiest[f"{last} → {first}"] = round(min(inks, default=0), 4)
        cast.stop()
    assert emptiest == {}
    assert recorded >= len(steps) - 1  # the screencast saw every change


# The object each named change shares: the element before the key and the element after it.
SHARED = {
    "attention-step-by-step": [
        ("#/2/2", "[data-identity='X']", "[data-tensor='X']"),  # the stack's embeddings become X
        ("#/6/3", "[data-tensor='q-row']", "[data-tensor='q-row']"),  # the query row moves up
        ("#/9/5", "[data-tensor='map']", "[data-identity='map']"),  # the map into the mask's scores
        ("#/9/7", "[data-identity='map']", "[data-identity='map']"),  # the masked map into the growing square
        ("#/12/1", "[data-tensor='scaled'] .cell[data-r='2']", "[data-identity='softmax-row']"),  # the row into softmax
        ("#/13/5", "[data-tensor='X']", "[data-identity='X']"),  # X (the stream) into the flow
    ],
    "attention-walkthrough": [  # the embedding rows: a looked-up row of the river sentence into its X
        ("#/2/2", "[data-tensor='look0'] .cell[data-r='0']", "[data-tensor='X'] .cell[data-r='0']"),
    ],
    "real-heads": [
        ("#/5/5", "[data-tensor='map']", "[data-widget='heatmap'] [data-identity]"),  # the head's map into its cell
        ("#/6/1", "[data-widget='heatmap'] [data-identity]", "[data-tensor='example']"),  # and the cell into its map
    ],
}
NAMED = [(deck, *change) for deck, changes in SHARED.items() if deck in DECKS for change in changes]

# The union of the boxes of the active slide's elements matching `sel`, in CSS px.
BOX = """(sel) => {
  const active = '#stage > .slide.active ';
  const els = [...document.querySelectorAll(active + sel.split(', ').join(', ' + active))];
  if (!els.length) return null;
  const rs = els.map((e) => e.getBoundingClientRect());
  const l = Math.min(...rs.map((r) => r.left)), t = Math.min(...rs.map((r) => r.top));
  return { x: l, y: t, w: Math.max(...rs.map((r) => r.right)) - l, h: Math.max(...rs.map((r) => r.bottom)) - t };
}"""

# Samples every traveller's box on every animation frame, from now until none is left (5 s at most).
SAMPLE = """() => { window.__flights = new Map(); const ids = new WeakMap(); let n = 0;
  const t0 = performance.now();
  window.__sampled = new Promise((resolve) => { const tick = () => {
    const ts = [...document.querySelectorAll('#stage > .traveller')];
    for (const t of ts) {
      if (!ids.has(t)) ids.set(t, n++);
      const r = t.getBoundingClientRect();
      const id = ids.get(t);
      // Where it is aimed: the last keyframe's translate (stage units) and scale.
      const end = t.getAnimations()[0]?.effect.getKeyframes().at(-1)?.transform ?? '';
      const aim = (end.match(/-?[0-9.]+/g) || []).map(Number);
      if (!window.__flights.has(id)) window.__flights.set(id, { aim, at: [] });
      window.__flights.get(id).aim = aim;
      window.__flights.get(id).at.push([r.left, r.top, r.width, r.height]);
    }
    if ((n && !ts.length) || performance.now() - t0 > 5000) resolve([...window.__flights.values()]);
    else requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }); }"""

PAD_PX = 6 * 1280 / 1600  # the copy's margin (views/continuity.js PAD) in CSS px at 1280 wide


def monotonic(xs: list[float]) -> bool:
    tol = 1.0
    steps = list(itertools.pairwise(xs))
    return all(b >= a - tol for a, b in steps) or all(b <= a + tol for a, b in steps)


def moves_on(at: list[list[float]]) -> bool:
    """Seen on its way (at least one frame between its first and last place) and never turning back."""
    between = [p for p in at[1:-1] if p[:2] != at[0][:2] and p[:2] != at[-1][:2]]
    return bool(between) and monotonic([p[0] for p in at]) and monotonic([p[1] for p in at])


def lands(flight: dict, new: dict) -> bool:
    """Its last frame, or where its motion is aimed (a loaded machine may paint its end late), puts
    the copy's object on the new one's box."""
    first, last = flight["at"][0], flight["at"][-1]
    scale = last[2] / first[2]
    if abs(last[0] + PAD_PX * scale - new["x"]) < 6 and abs(last[1] + PAD_PX * scale - new["y"]) < 6:
        return True
    if len(flight["aim"]) != 3:
        return False
    tx, ty, s = flight["aim"]
    k = 1280 / 1600  # stage units → CSS px
    return abs(first[0] + k * tx + PAD_PX * s - new["x"]) < 6 and abs(first[1] + k * ty + PAD_PX * s - new["y"]) < 6


@pytest.mark.parametrize("deck, hash_, before, after", NAMED)
def test_a_shared_object_travels(browser, server_url, deck, hash_, before, after) -> None:
    with tracked_page(browser, motion="no-preference") as page:
        open_at(page, server_url, deck, hash_)
        nxt = _next(page, hash_)
        go(page, nxt)  # both steps drawn once: the flight is measured at a presenter's pace, not a first build
        go(page, hash_)
        Screencast(page, rate=0.2).stop()  # for its slower playback only: more frames in each flight
        old = page.evaluate(BOX, before)
        assert old, f"{before} not on {hash_}"
        page.evaluate(SAMPLE)
        page.keyboard.press("ArrowRight")
        flights = page.evaluate("() => window.__sampled")
        assert page.evaluate(SETTLED, nxt)
        new = page.evaluate(BOX, after)
        assert new, f"{after} not on {nxt}"
    # The copy of the old object: it starts on the old box (its margin around it).
    starts = [f for f in flights
              if abs(f["at"][0][0] + PAD_PX - old["x"]) < 4 and abs(f["at"][0][1] + PAD_PX - old["y"]) < 4]
    assert starts, (old, [f["at"][0] for f in flights])
    assert any(lands(f, new) and moves_on(f["at"]) for f in starts), {"old": old, "new": new, "flights": starts}
    assert max(abs(old["x"] - new["x"]), abs(old["y"] - new["y"])) > 20  # a visible journey


def _next(page, hash_: str, by: int = 1) -> str:
    steps = page.evaluate(SLIDE_STEPS)
    order = [f"#/{s + 1}/{k + 1}" for s, n in enumerate(steps) for k in range(n)]
    return order[order.index(hash_) + by]


def _as_loaded(browser, server_url, deck: str, hash_: str, motion: str = "reduce") -> list:
    with tracked_page(browser, motion=motion) as fresh:
        open_at(fresh, server_url, deck, hash_)
        assert fresh.evaluate(SETTLED, hash_)
        return fresh.evaluate(VISIBLE_TEXT)


NOTHING_LEFT = """() => ({ travellers: document.querySelectorAll('#stage > .traveller').length,
  leaving: document.querySelectorAll('#stage > .slide.leaving').length,
  hidden: [...document.querySelectorAll('#stage [style*="visibility"]')].map((e) => e.outerHTML.slice(0, 60)),
  slides: [...document.querySelectorAll('#stage > .slide')]
    .filter((s) => getComputedStyle(s).visibility !== 'hidden').length })"""


@pytest.mark.parametrize("deck, hash_, before, after", NAMED)
def test_reduced_motion_lands_at_once(browser, server_url, deck, hash_, before, after) -> None:
    with tracked_page(browser, motion="reduce") as page:
        open_at(page, server_url, deck, hash_)
        nxt = _next(page, hash_)
        page.keyboard.press("ArrowRight")
        wait_hash(page, nxt)
        assert page.evaluate(SETTLED, nxt)
        running = page.evaluate("() => document.getAnimations().map((a) => String(a.effect?.target?.tagName))")
        assert running == []
        assert page.evaluate(NOTHING_LEFT) == {"travellers": 0, "leaving": 0, "hidden": [], "slides": 1}
        stepped = page.evaluate(VISIBLE_TEXT)
    assert stepped == _as_loaded(browser, server_url, deck, nxt)


# Resolves once a traveller is on the stage (the flight is under way), false after 5 s.
IN_FLIGHT = """async () => { const until = performance.now() + 5000;
  while (!document.querySelector('#stage > .traveller') && performance.now() < until)
    await new Promise((r) => requestAnimationFrame(r));
  return Boolean(document.querySelector('#stage > .traveller')); }"""


@pytest.mark.parametrize("key, by", [("ArrowRight", 2), ("ArrowLeft", 0)])
@pytest.mark.parametrize("deck, hash_, before, after", NAMED[:2])
def test_a_key_mid_flight_lands_where_the_url_does(browser, server_url, deck, hash_, before, after, key, by) -> None:
    with tracked_page(browser, motion="no-preference") as page:
        open_at(page, server_url, deck, hash_)
        assert page.evaluate(SETTLED, hash_)
        Screencast(page).stop()  # slower playback: the second key falls inside the flight
        target = _next(page, hash_, by)
        page.keyboard.press("ArrowRight")
        assert page.evaluate(IN_FLIGHT)
        page.keyboard.press(key)
        wait_hash(page, target)
        assert page.evaluate(SETTLED, target)
        assert page.evaluate(NOTHING_LEFT) == {"travellers": 0, "leaving": 0, "hidden": [], "slides": 1}
        stepped = page.evaluate(VISIBLE_TEXT)
    assert stepped == _as_loaded(browser, server_url, deck, target, motion="no-preference")


def test_the_speaker_views_previews_get_no_travellers(browser, server_url) -> None:
    with tracked_page(browser, motion="no-preference") as page:
        page.goto(f"{server_url}/talk/attention-step-by-step/presenter#/6/3")
        page.wait_for_selector("#presenter.ready", state="attached")
        page.evaluate(SAMPLE)
        page.keyboard.press("ArrowRight")
        wait_hash(page, "#/7/1")
        seen = page.evaluate("""async () => { const until = performance.now() + 1500; let n = 0;
          while (performance.now() < until) { n += document.querySelectorAll('.traveller, .slide.leaving').length;
            await new Promise((r) => requestAnimationFrame(r)); } return n; }""")
    assert seen == 0
