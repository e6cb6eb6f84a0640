"""Chapter 1 in real Chromium: walk every step with →, captions follow, nothing leaves the stage, and
every matrix cell explains its number (click or focus it: the panel's arithmetic recomputes the cell)."""

from __future__ import annotations

import pytest
from panel_check import DRAWN, SMALL_TEXT, check_cell

DECK = "attention-step-by-step"

OVERFLOW_JS = """() => {
  const stage = document.querySelector('#stage').getBoundingClientRect();
  const slide = document.querySelector('.slide.active');
  const out = [];
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('.steps, .sr-only')) continue;     // visually hidden: the step list, the tables
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < stage.left - 1 || r.top < stage.top - 1 || r.right > stage.right + 1 || r.bottom > stage.bottom + 1)
      out.push(`${el.tagName}.${el.getAttribute('class') || ''}`);
  }
  const caption = document.querySelector('.caption-bar').getBoundingClientRect();
  if (caption.bottom > stage.bottom + 1) out.push('caption-bar');
  return out;
}"""

PLAIN_CELLS_JS = """() => [...document.querySelectorAll('.slide.active .canvas > .tensor:not(.leaving) .cell')]
  .filter(c => !c.classList.contains('derivable')).map(c => c.closest('.tensor').dataset.tensor)"""


# One round trip per step: wait for the step and its drawing, then return its caption, whatever
# overflows the stage, and the drawn cells still without a derivation once they have had up to
# 2 s to attach (derivations attach just after drawing).
STEP_DRAWN = f"""async ([slide, step]) => {{
  const at = () => document.querySelector('#player').dataset.step === String(step)
    && location.hash === `#/${{slide}}/${{step}}`;
  for (const until = performance.now() + 5000; !at(); ) {{
    if (performance.now() > until) return null;
    await new Promise((r) => requestAnimationFrame(r));
  }}
  await ({DRAWN})();
  // The slide entering from the side (views/continuity.js) is judged where it lands.
  await Promise.all(document.querySelector('.slide.active').getAnimations().map((a) => a.finished.catch(() => null)));
  const caption = document.querySelector('#caption').innerText, overflow = ({OVERFLOW_JS})(), small = ({SMALL_TEXT})();
  let plain = ({PLAIN_CELLS_JS})();
  for (const until = performance.now() + 2000; plain.length && performance.now() < until; ) {{
    await new Promise((r) => requestAnimationFrame(r));
    plain = ({PLAIN_CELLS_JS})();
  }}
  return {{ caption, overflow, small, plain: [...new Set(plain)] }};
}}"""


def test_walk_every_step(open_talk, watch, server_url) -> None:
    page = open_talk(DECK)
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    steps = [(i + 1, j + 1, c) for i, s in enumerate(manifest["slides"]) for j, c in enumerate(s["captions"])]
    assert len(steps) >= 40
    for n, (slide, step, caption) in enumerate(steps):
        if n:
            page.keyboard.press("ArrowRight")
        drawn = page.evaluate(STEP_DRAWN, [slide, step])
        assert drawn is not None, f"the player never reached #/{slide}/{step}"
        assert drawn["caption"] == caption
        assert drawn["overflow"] == [], (slide, step, caption)
        assert drawn["small"] == [], f"text under the type floor at 1280×720 on #/{slide}/{step}: {drawn['small']}"
        assert drawn["plain"] == [], f"cells without a derivation at #/{slide}/{step}: {set(drawn['plain'])}"
    watch.assert_clean()


def test_counter_is_drawn_from_the_frame(talk) -> None:
    page = talk.open(DECK, "#/6/3")
    chip = page.locator('#slide-query-matrix .counter-chip[data-counter="flops-1-token"] .value')
    chip.wait_for()
    assert chip.inner_text() == "1,835,008"


def test_dense_layer_indices_fit_their_neurons(talk) -> None:
    """The neurons' numbers (up to "7,168", at the stage's smallest type) stay inside their circles."""
    page = talk.open(DECK, "#/5/3")
    page.locator("#slide-query-dense .dense-index").first.wait_for()
    spill = page.evaluate("""() => [...document.querySelectorAll('#slide-query-dense .dense-node')].map((g) => {
      const t = g.querySelector('.dense-index').getBBox(), c = g.querySelector('circle').getBBox();
      return [g.querySelector('.dense-index').textContent, t.x >= c.x && t.x + t.width <= c.x + c.width];
    })""")
    assert len(spill) == 11 and "7,168" in dict(spill)
    assert [label for label, inside in spill if not inside] == []


def test_growth_widget_is_interactive_and_keeps_the_clicker(open_talk) -> None:
    page = open_talk(DECK, "#/10/3")
    panel = page.locator("#slide-map-size .growth-panel")
    panel.wait_for()
    first = panel.locator("dd").first
    assert first.inner_text() == "14 tokens"
    panel.get_by_role("button", name="Double the context").click()
    assert first.inner_text() == "28 tokens"
    slider = panel.locator('input[type="range"]')
    slider.focus()
    page.keyboard.press("End")  # the slider takes its own keys: jump to the longest context
    assert first.inner_text() == "163,840 tokens"
    assert page.locator("#player").get_attribute("data-step") == "3"
    page.keyboard.press("PageDown")  # ...but the clicker still moves the talk
    page.wait_for_function("() => document.querySelector('#player').dataset.slide === 'values'")
    page.keyboard.press("ArrowRight")  # focus left the hidden slide, so arrows step again
    assert page.locator("#player").get_attribute("data-step") == "2"


@pytest.mark.parametrize("hash_, tensors", [
    ("#/3/1", ["X"]),                          # embedding lookup
    ("#/6/2", ["x-row", "W_Q", "q-row"]),      # x · W_Q = q
    ("#/9/3", ["Q", "KT", "map"]),             # one cell: a query meets a key
    ("#/12/1", ["map", "scaled"]),             # ÷ √d_k, with −∞ cells
    ("#/12/7", ["weights", "sums"]),           # softmax and the row sums
    ("#/12/9", ["weights", "V", "Z"]),         # Z = A·V
    ("#/13/3", ["z-row", "W_O", "o-row"]),     # z · W_O
    ("#/13/5", ["X", "O", "X2"]),              # the residual X + O
])
def test_panels_recompute_the_cell(talk, hash_, tensors) -> None:
    page = talk.open(DECK, hash_)
    for name in tensors:
        cells = page.locator(f".slide.active [data-tensor='{name}'] .cell.derivable")
        cells.first.wait_for()
        for k in (0, cells.count() - 1):
            cell = cells.nth(k)
            cell.click()
            check_cell(page, cell)
        page.keyboard.press("Escape")  # the panel may sit over the next matrix
    talk.assert_clean()


def test_residual_cell_by_keyboard(talk) -> None:
    page = talk.open(DECK, "#/13/5")
    cell = page.locator(".slide.active [data-tensor='X2'] .cell.derivable").first
    cell.wait_for()
    stops = page.locator(".slide.active [data-tensor='X2'] .cell.derivable[tabindex='0']")
    assert stops.count() == 1 and cell.get_attribute("role") == "button"  # one Tab stop per matrix
    cell.focus()
    assert page.locator(".derivation-panel:not([hidden])").count() == 0  # focus alone opens nothing
    page.keyboard.press("Enter")
    panel = page.locator(".derivation-panel:not([hidden])")
    assert panel.is_visible() and "x + o" in panel.locator(".deriv-title").inner_text()
    assert page.evaluate("document.activeElement.classList.contains('derivation-panel')")
    labels = panel.locator(".deriv-line[data-op='add'] .term-label").all_inner_texts()
    assert [t.strip(": ") for t in labels] == ["x", "o"]
    check_cell(page, cell)
    page.keyboard.press("Escape")
    assert page.locator(".derivation-panel").is_hidden()
    assert page.evaluate("document.activeElement.matches('.cell.derivable')")  # the focus is back
    talk.assert_clean()
