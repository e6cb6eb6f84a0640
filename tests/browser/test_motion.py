"""Motion that explains, never overlapping; none at all with prefers-reduced-motion: reduce.

- In flight, no two visible matrices of one slide overlap (one that leaves is gone before another
  arrives in its place, a kept one moves only once the leaving ones have left), and at most two
  slides are visible at once, the one leaving and the one entering (views/continuity.js; their
  overlap and the objects that travel between them: test_continuity.py): sampled every animation
  frame through the transitions that move most.
- With reduced motion, stepping through every step of both decks starts no transition and no
  animation (document.getAnimations() stays empty).
- The motions themselves: the mask sweeps cell by cell, the softmax weights grow as bars, a
  ghost query row and key column travel into their score cell, and the value rows travel into
  the output row, each as strong as its weight.
- Motion costs no layout: every transition in the style sheets and every animation that runs
  while stepping changes only properties that are painted or composited (PAINT_ONLY), never a
  size or a place in the layout (width, height, top, margin, font-size…)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from stage_probe import DECKS, deck_steps, open_at, step_forward, tracked_page

# Samples every animation frame after a key, until the step it took is drawn and no animation or
# transition runs any more (then nothing moves: what follows would be the same picture), or for
# `ms` at most: pairs of visible matrices that overlap (and did not overlap before the step nor after
# it), and the most slides visible at once.
SAMPLE = """async (ms) => {
  const visible = (el) => { for (let e = el; e && e !== document.body; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.visibility === 'hidden' || parseFloat(cs.opacity) < 0.05) return false; } return true; };
  const overlaps = () => {
    const gs = [...document.querySelectorAll('#stage > .slide .canvas > .tensor')].filter(visible);
    const rs = gs.map((g) => [g.closest('.slide').dataset.slideId + ':' + g.dataset.tensor, g.getBoundingClientRect(),
      g.closest('.slide')]);
    const out = new Set();
    for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
      const [a, A, sa] = rs[i], [b, B, sb] = rs[j];
      if (sa !== sb) continue;  // the slide leaving and the one entering overlap by design
      const w = Math.min(A.right, B.right) - Math.max(A.left, B.left);
      const h = Math.min(A.bottom, B.bottom) - Math.max(A.top, B.top);
      if (w > 4 && h > 4) out.add([a, b].sort().join(' & '));
    }
    return out;
  };
  const seen = new Set(); let slides = 0;
  const still = () => window.__drawn !== window.__drawnBefore && !document.getAnimations()
    .some((a) => a.playState === 'running' || a.pending);
  const t0 = performance.now();
  await new Promise((resolve) => { const tick = () => {
    for (const o of overlaps()) seen.add(o);
    slides = Math.max(slides, [...document.querySelectorAll('#stage > .slide')].filter(visible).length);
    if (performance.now() - t0 < ms && !still()) requestAnimationFrame(tick); else resolve(); };
    requestAnimationFrame(tick); });
  const after = overlaps();
  return { overlaps: [...seen].filter((o) => !after.has(o) && !window.__before.has(o)), slides };
}"""

BEFORE = """() => { window.__before = new Set(); window.__drawnBefore = window.__drawn; }"""

# Resolves once no animation or transition runs (a freshly loaded step fades in), after `ms` at most.
SETTLED = """async (ms) => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().some((a) => a.playState === 'running' || a.pending);
  while (moving() && performance.now() - t0 < ms) await new Promise((r) => requestAnimationFrame(r));
}"""

# Slides whose steps move matrices most: chapter 1's map, softmax and output; chapter 2's pipeline
# (one matrix replaced by the next in the same place) and its heads; and the slide changes into them.
SAMPLED = {"attention-step-by-step": ["#/8/2", "#/9/2", "#/9/5", "#/9/6", "#/11/4", "#/12/1", "#/12/3", "#/12/6",
                                      "#/13/1", "#/13/2", "#/13/4"],
           "attention-walkthrough": ["#/5/5", "#/6/1", "#/6/2", "#/6/3", "#/6/4", "#/8/1", "#/8/2", "#/8/3"],
           # chapter 3: RoPE's grid gaining rows, the real map gaining and losing its row, grid to example
           "real-heads": ["#/3/2", "#/5/3", "#/5/4", "#/6/1"],
           # chapter 4: the latent carried from step to step, the index map gaining its keep, sparse beside dense
           "deepseek-attention": ["#/3/2", "#/3/3", "#/4/2", "#/6/3", "#/6/4"]}


# What a transition or an animation may change: the compositor's (transform, opacity), and the
# paint-only colours of SVG cells. Anything else would lay the page out again on every frame.
PAINT_ONLY = {"transform", "opacity", "visibility", "fill-opacity", "stroke"}
CSS = Path(__file__).resolve().parents[2] / "static" / "css"
TIMING = {"ease", "linear", "ease-in", "ease-out", "ease-in-out", "step-start", "step-end", "none"}

# The properties the running animations change: a CSS transition's property, or the keys of a Web
# Animation's (or CSS animation's) keyframes.
ANIMATED = """() => [...new Set(document.getAnimations().flatMap((a) => a.transitionProperty ? [a.transitionProperty]
  : a.effect.getKeyframes().flatMap((k) => Object.keys(k))
      .filter((p) => !['offset', 'computedOffset', 'easing', 'composite'].includes(p))))]"""


def transitioned(css: str) -> set[str]:
    """The properties named by every transition / transition-property declaration of a style sheet
    (one list item each: the property is its one word that is not a time or an easing)."""
    names = set()
    for decl in re.findall(r"transition(?:-property)?\s*:\s*([^;}]+)", css):
        for item in re.split(r",(?![^(]*\))", decl):
            words = [w for w in re.sub(r"\w[\w-]*\([^)]*\)", "", item).split()
                     if w not in TIMING and not re.fullmatch(r"[-+]?[\d.]+m?s", w) and not w.startswith("!")]
            names.update(words)
    return names


def keyframed(css: str) -> set[str]:
    """The properties set inside every @keyframes block."""
    names = set()
    for body in re.findall(r"@keyframes\s+[\w-]+\s*{((?:[^{}]*{[^{}]*})*)[^{}]*}", css):
        names.update(re.findall(r"([a-z-]+)\s*:", body))
    return names


def test_transitions_and_keyframes_change_paint_only() -> None:
    sheets = {p.name: p.read_text(encoding="utf-8") for p in sorted(CSS.glob("*.css"))}
    assert {"talk.css", "walkthrough.css", "rooms.css"} <= set(sheets)
    assert transitioned("a { transition: width 1s ease, opacity var(--t) cubic-bezier(.2, .7, .2, 1) .2s; }") == \
        {"width", "opacity"}  # the parser itself
    assert keyframed("@keyframes p { from { opacity: 1; } to { height: 3px; } }") == {"opacity", "height"}
    found = {name: (transitioned(css) | keyframed(css)) - PAINT_ONLY for name, css in sheets.items()}
    assert {name: bad for name, bad in found.items() if bad} == {}
    assert "transform" in transitioned(sheets["walkthrough.css"])  # the slider's square, no longer its width


@pytest.fixture
def animated(browser):
    """A page with motion (prefers-reduced-motion: no-preference)."""
    with tracked_page(browser, motion="no-preference") as page:
        yield page


@pytest.mark.parametrize("deck", DECKS)
def test_nothing_overlaps_in_flight(animated, server_url, deck) -> None:
    page = animated
    bad, ran = {}, set()
    for hash_ in SAMPLED[deck]:
        open_at(page, server_url, deck, hash_)
        page.evaluate(SETTLED, 900)
        page.evaluate(BEFORE)
        page.keyboard.press("ArrowRight")
        ran.update(page.evaluate(ANIMATED))
        seen = page.evaluate(SAMPLE, 1600)
        if seen["overlaps"] or seen["slides"] > 2:
            bad[hash_] = seen
    assert bad == {}
    assert "opacity" in ran and ran - PAINT_ONLY == set()  # motion ran, and laid nothing out


@pytest.mark.parametrize("deck", DECKS)
def test_reduced_motion_runs_no_animation(browser, server_url, deck) -> None:
    running = {}
    with tracked_page(browser) as page:
        open_at(page, server_url, deck, "#/1/1")
        for n, hash_ in enumerate(deck_steps(page)):
            if n:
                step_forward(page, hash_)
            names = page.evaluate("""() => document.getAnimations()
              .filter((a) => a.playState === 'running' || a.playState === 'pending')
              .map((a) => (a.transitionProperty || a.animationName || 'web animation') + ' on '
                   + (a.effect?.target?.getAttribute('class') || a.effect?.target?.tagName))""")
            if names:
                running[hash_] = names[:3]
    assert running == {}


def motions_after(page, server_url, hash_: str) -> list[str]:
    """Step on from `hash_` and list the Web Animations the matrix view started (by target)."""
    open_at(page, server_url, "attention-step-by-step", hash_)
    page.evaluate(SETTLED, 900)
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(60)
    return page.evaluate("""() => document.getAnimations().filter((a) => !a.transitionProperty)
      .map((a) => { const t = a.effect.target; const cell = t.closest('.cell');
        return (t.getAttribute('class') || t.tagName) + (cell ? ' cell ' + cell.dataset.r + ',' + cell.dataset.c : '')
          + ' ' + Math.round(a.effect.getTiming().delay); })""")


def test_the_motions_explain(animated, server_url) -> None:
    page = animated
    meet = motions_after(page, server_url, "#/9/2")               # one cell: a query meets a key
    assert sum(m.startswith("ghost kind-query") for m in meet) == 1
    assert sum(m.startswith("ghost kind-key") for m in meet) == 1
    # M lands on the map (9/6 → 9/7): each cell it blocks takes the masked look, one diagonal after the other
    landed = motions_after(page, server_url, "#/9/6")
    sweep = [int(m.split(" ")[-1]) for m in landed if m.startswith("mech-masked-cell")]
    assert len(sweep) == 21                                        # every cell above the diagonal
    diagonals = sorted(set(sweep))
    assert len(diagonals) == 6 and all(b - a == 60 for a, b in itertools.pairwise(diagonals))
    assert [sweep.count(d) for d in diagonals] == [6, 5, 4, 3, 2, 1]  # the first diagonal has six cells
    # e^x stacks into their sum (12/4 → 12/5): the bars of the keys "dog" may read, one after the other
    stacking = motions_after(page, server_url, "#/12/4")
    assert sorted({int(m.split(" ")[-1]) for m in stacking if m.startswith("mech-segment")}) == [0, 90, 180]
    mixing = motions_after(page, server_url, "#/12/8")              # the value rows add into the output
    assert sum(m.startswith("ghost kind-value") for m in mixing) == 7


def test_a_key_pressed_in_flight_finishes_the_last_steps_motion(animated, server_url) -> None:
    """A presenter who presses on while a step still moves goes on from that step's end: its motion
    (the q·k ghosts take over a second) is finished at once, its ghosts are gone, and only the new
    step's own motion runs. Nothing of an earlier step keeps animating beside the new one."""
    page = animated
    open_at(page, server_url, "attention-step-by-step", "#/9/2")
    page.evaluate(SETTLED, 900)
    page.keyboard.press("ArrowRight")  # 9/3: a query row and a key column travel into their cell
    page.wait_for_timeout(80)
    before = page.evaluate("""() => { window.__old = document.querySelector('#stage').getAnimations({ subtree: true })
        .filter((a) => a.playState === 'running' || a.pending);
      return window.__old.filter((a) => a.effect.target.classList.contains('ghost')).length; }""")
    assert before == 2  # the two ghosts are in flight
    page.keyboard.press("ArrowRight")  # 9/4, pressed in flight
    # still moving: running, paused or about to start (one whose element the new step removed is
    # cancelled, idle, and moves no more: on a loaded machine a transition can be caught that way)
    left = page.evaluate("""() => window.__old.filter((a) => a.pending || ['running', 'paused'].includes(a.playState))
        .map((a) => a.effect.target.getAttribute('class') || a.effect.target.tagName)""")
    assert left == []
    assert page.evaluate("document.querySelectorAll('#slide-attention-map .ghost').length") == 0
    assert page.evaluate("document.querySelector('#player').dataset.step") == "4"
