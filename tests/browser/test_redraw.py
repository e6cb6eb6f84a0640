"""A step change redraws only what changed (views/matrix.js, views/derivation.js,
views/tensor-table.js), and what it draws is what loading that step by its URL draws.

- A tensor that a step keeps exactly as it was: its SVG group is not written at all (no attribute,
  text or child changes, seen by a MutationObserver), and its table for screen readers is the same
  node; a tensor that changes is written, and its table is new.
- Stepping through a slide and loading each of its steps by URL give the same drawing and the same
  tables, attribute for attribute (class tokens and style declarations in any order)."""

from __future__ import annotations

import itertools
import json

import pytest
from stage_probe import DRAWN, open_at, step_forward, tracked_page

DECK = "attention-step-by-step"

# Every element of the active slide's drawing and tables: tag, attributes (class tokens and inline
# style declarations sorted: the order they were set in does not matter) and its own text; the
# layers' children in any order (a tensor new in a step is appended after the kept ones).
SNAPSHOT = r"""async () => {
  await new Promise((r) => requestIdleCallback(() => setTimeout(r), { timeout: 2000 }));  // tables written
  const slide = document.querySelector('.slide.active');
  const describe = (el) => {
    const attrs = [...el.attributes].map((a) => [a.name,
      a.name === 'class' ? a.value.split(/\s+/).filter(Boolean).sort().join(' ')
      : a.name === 'style' ? a.value.split(';').map((d) => d.trim()).filter(Boolean).sort().join('; ')
      : a.value]).sort();
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.nodeValue).join('');
    return JSON.stringify([el.tagName, attrs, text]);
  };
  return [...slide.querySelectorAll('.canvas, .tensor-tables, .notes-layer, .counters')].map((layer) => [
    describe(layer),
    [...layer.children].map((child) => [child, ...child.querySelectorAll('*')].map(describe)).sort(),
  ]);
}"""

# Watch the drawing of tensors `names` and remember their tables' nodes.
WATCH = """(names) => {
  window.__mutations = Object.fromEntries(names.map((n) => [n, 0]));
  window.__tables = {};
  for (const n of names) {
    const g = document.querySelector(`.slide.active .canvas > .tensor[data-tensor="${n}"]`);
    new MutationObserver((records) => { window.__mutations[n] += records.length; })
      .observe(g, { attributes: true, characterData: true, childList: true, subtree: true });
    window.__tables[n] = document.querySelector(`.slide.active .tensor-tables table[data-table-for="${n}"]`);
  }
}"""

TABLES_KEPT = """async (names) => {
  await new Promise((r) => requestIdleCallback(() => setTimeout(r), { timeout: 2000 }));
  return Object.fromEntries(names.map((n) => [n, document.querySelector(
    `.slide.active .tensor-tables table[data-table-for="${n}"]`) === window.__tables[n]]));
}"""


@pytest.fixture(scope="module")
def still(browser):
    """A page without motion: a stepped drawing holds no animation's in-between state."""
    with tracked_page(browser) as page:
        yield page


def kept_and_changed(page, server_url: str) -> tuple[int, int, str, str]:
    """The first step change of the deck that keeps one tensor exactly and changes another's numbers:
    (slide number, step, kept tensor, changed tensor), from the frames the API serves."""
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    for number, slide in enumerate(manifest["slides"], start=1):
        frames = page.request.get(f"{server_url}/api/decks/{DECK}/slides/{slide['id']}/frames").json()["frames"]
        for a, b in itertools.pairwise(frames):
            before = {t["name"]: json.dumps(t, sort_keys=True) for t in a["tensors"]}
            after = {t["name"]: json.dumps(t, sort_keys=True) for t in b["tensors"]}
            kept = [n for n in before if after.get(n) == before[n]]
            # changed in what its table shows too (not only where it sits)
            changed = [n for n in before if n in after and any(
                json.loads(after[n])[k] != json.loads(before[n])[k] for k in ("values", "highlight", "reveal"))]
            if kept and changed:
                return number, a["step"], kept[0], changed[0]
    raise AssertionError("no step keeps one tensor and changes another")


def test_a_step_writes_only_the_tensors_it_changes(still, server_url) -> None:
    number, step, kept, changed = kept_and_changed(still, server_url)
    open_at(still, server_url, DECK, f"#/{number}/{step}")
    still.evaluate(WATCH, [kept, changed])
    step_forward(still, f"#/{number}/{step + 1}")
    mutations = still.evaluate("window.__mutations")
    assert mutations[kept] == 0, f"{kept} is the same in both steps but was written"
    assert mutations[changed] > 0
    assert still.evaluate(TABLES_KEPT, [kept, changed]) == {kept: True, changed: False}


@pytest.mark.parametrize("number", [11, 12])
def test_stepping_draws_what_loading_the_step_draws(still, server_url, number) -> None:
    open_at(still, server_url, DECK, f"#/{number}/1")
    steps = still.evaluate("(n) => window.attentionTalk.player.stepsOf(n)", number)
    stepped = []
    for step in range(2, steps + 1):
        step_forward(still, f"#/{number}/{step}")
        stepped.append(still.evaluate(SNAPSHOT))
    for step in range(2, steps + 1):
        open_at(still, server_url, DECK, f"#/{number}/{step}")
        still.evaluate(DRAWN, f"#/{number}/{step}")
        assert stepped[step - 2] == still.evaluate(SNAPSHOT), f"step {number}/{step}"


def test_the_next_slide_is_drawn_before_its_key(still, server_url) -> None:
    """On a slide's last step, the next slide's first step is drawn (and laid out, still hidden) in idle
    time (controllers/stage.js prepareNext); its key shows those very elements; a step back, and no slide
    is kept drawn in waiting."""
    manifest = still.request.get(f"{server_url}/api/decks/{DECK}").json()
    for number, slide in enumerate(manifest["slides"][1:], start=1):
        frames = still.request.get(f"{server_url}/api/decks/{DECK}/slides/{slide['id']}/frames").json()["frames"]
        if frames[0]["tensors"] and manifest["slides"][number - 1]["steps"] >= 2:
            break
    last = manifest["slides"][number - 1]["steps"]
    names = sorted(t["name"] for t in frames[0]["tensors"])
    open_at(still, server_url, DECK, f"#/{number}/{last}")
    still.wait_for_function("""(id) => { const s = document.querySelector(`.slide.prepared[data-slide-id="${id}"]`);
        return s && s.querySelector('.canvas > .tensor'); }""", arg=slide["id"], timeout=60_000)
    waiting = still.evaluate("""(id) => { const s = document.querySelector(`.slide[data-slide-id="${id}"]`);
        window.__made = [...s.querySelectorAll('.canvas > .tensor')];
        const cs = getComputedStyle(s);
        return { names: window.__made.map((g) => g.dataset.tensor).sort(), visibility: cs.visibility,
                 laidOut: cs.contentVisibility !== 'hidden', active: s.classList.contains('active') }; }""",
        slide["id"])
    assert waiting == {"names": names, "visibility": "hidden", "laidOut": True, "active": False}
    step_forward(still, f"#/{number + 1}/1")
    shown = still.evaluate("""() => { const s = document.querySelector('.slide.active');
        const now = [...s.querySelectorAll('.canvas > .tensor')];
        return { same: now.length === window.__made.length && now.every((g, i) => g === window.__made[i]),
                 prepared: s.classList.contains('prepared') }; }""")
    assert shown == {"same": True, "prepared": False}  # the drawing made before the key, not a new one
    open_at(still, server_url, DECK, f"#/{number}/{last}")
    still.wait_for_selector(".slide.prepared", state="attached", timeout=60_000)
    still.keyboard.press("ArrowLeft")
    still.evaluate(DRAWN, f"#/{number}/{last - 1}")
    assert still.locator(".slide.prepared").count() == 0
