"""Read an open derivation panel in the browser and redo its arithmetic (shared by both chapters)."""

from __future__ import annotations

import re

import pytest
from stage_probe import SEEN_TEXTS

OUTSIDE_STAGE = """() => {
  const s = document.querySelector('#stage').getBoundingClientRect();
  // An element still moving (the slide entering from the side: views/continuity.js) is judged once
  // it has landed, on a later step or by the stepping-vs-URL test.
  const moving = new Set(document.getAnimations().map((a) => a.effect && a.effect.target));
  const still = (el) => { for (let e = el; e; e = e.parentElement) if (moving.has(e)) return false; return true; };
  const bad = [];
  for (const el of document.querySelectorAll('.slide.active *, .derivation-panel:not([hidden])')) {
    if (el.closest('.steps, .sr-only') || !still(el)) continue;  // visually hidden: the step list, the tables
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.left < s.left - 1 || r.top < s.top - 1 || r.right > s.right + 1 || r.bottom > s.bottom + 1) {
      bad.push(el.tagName + '.' + (el.className.baseVal ?? el.className));
    }
  }
  return bad;
}"""


# Text the audience sees under the type floor of VISUAL.md §4 at the window's size: index numbers
# (an axis label that is not a token) under 16 CSS px, any other text under 20 (the stage is scaled to the
# window: an SVG text's size goes through its screen matrix, an HTML one through the scale of its
# nearest laid-out ancestor). Text still moving (a running animation or transition on it or an
# ancestor: the mask sweeping in scales its cells up) is judged once it has landed, on a later step
# or by the stepping-vs-URL test. Returns [text, px] pairs from the active slide and the caption bar.
SMALL_TEXT = f"""() => {{
  const moving = new Set(document.getAnimations().map((a) => a.effect && a.effect.target));
  const still = (el) => {{ for (let e = el; e; e = e.parentElement) if (moving.has(e)) return false; return true; }};
  const small = [];
  for (const [n, el] of ({SEEN_TEXTS})()) {{
    if (!still(el)) continue;
    let scale = 1;
    if (el instanceof SVGElement) {{
      const m = el.getScreenCTM(); if (m) scale = Math.hypot(m.a, m.b);
    }} else {{
      for (let e = el; e; e = e.parentElement) {{
        if (e.offsetWidth > 0) {{ scale = e.getBoundingClientRect().width / e.offsetWidth; break; }}
      }}
    }}
    const px = parseFloat(getComputedStyle(el).fontSize) * scale;
    const floor = el.closest('.axis-label:not(.token)') ? 15.95 : 19.95;
    if (px < floor) small.push([n.textContent.trim().slice(0, 24), Math.round(px * 10) / 10]);
  }}
  return small;
}}"""


# Resolves after two animation frames: the step just taken has been drawn (the player's own
# double-requestAnimationFrame updates have run). Waits on the page, not on the clock (the 1 s
# timer only keeps a page whose frames stall from hanging the test).
DRAWN = """() => new Promise((r) => {
  requestAnimationFrame(() => requestAnimationFrame(() => r()));
  setTimeout(r, 1000);
})"""


def num(text: str) -> float:
    text = text.strip().replace("−", "-")
    return float("-inf") if text == "-∞" else float(text)


# Everything panel_recomputes reads, in one round trip: each line's op and its numbers (role, text),
# the numbers of the line after it (its total), and the softmax's exps, rest, numerator, denominator.
READ_PANEL = """() => {
  const panels = [...document.querySelectorAll('.derivation-panel:not([hidden])')];
  const texts = (root, sel) => [...root.querySelectorAll(sel)].map((e) => e.innerText);
  const nextLi = (el) => {  // XPath following-sibling::li[1]
    let n = el.nextElementSibling;
    while (n && n.tagName !== 'LI') n = n.nextElementSibling;
    return n;
  };
  return {
    panels: panels.length,
    lines: panels.flatMap((p) => [...p.querySelectorAll('.deriv-line[data-op]')].map((line) => {
      const li = nextLi(line);
      const nums = [...line.querySelectorAll('.num')].map((e) => [e.getAttribute('data-role'), e.innerText]);
      return { op: line.dataset.op, nums, next: li ? texts(li, '.num') : [] };
    })),
    exps: panels.flatMap((p) => texts(p, ".deriv-exps .num[data-role='e']")),
    rest: panels.flatMap((p) => texts(p, ".deriv-exps .num[data-role='rest']")),
    den: panels.flatMap((p) => texts(p, ".num[data-role='den']")),
    num: panels.flatMap((p) => texts(p, ".num[data-role='num']")),
  };
}"""


def one(texts: list[str]) -> float:
    """The number of the one element a selector must match."""
    assert len(texts) == 1, texts
    return num(texts[0])


def panel_recomputes(page) -> float:
    """Read the open derivation panel's numbers and redo its arithmetic; return the implied value."""
    # the slide's terms may still be on their way (fetched when its first frame was drawn)
    page.wait_for_selector(".derivation-panel:not([hidden]) .deriv-waiting", state="detached")
    panel = page.evaluate(READ_PANEL)
    assert panel["panels"] == 1, panel["panels"]
    value = None
    for line in panel["lines"]:
        op = line["op"]
        nums = {}
        for role, text in line["nums"]:
            nums.setdefault(role, []).append(num(text))
        if op in ("sum", "add"):
            products = zip(nums.get("a", [1.0] * len(nums["b"])), nums["b"], strict=True)  # add: b alone
            total = sum(a * b for a, b in products) + sum(nums.get("rest", []))
            shown_total = one(line["next"])
            assert total == pytest.approx(shown_total, abs=2e-3 * (1 + len(nums["b"])))
            value = shown_total
        elif op == "scale":
            assert value * nums["factor"][0] == pytest.approx(nums["result"][0], abs=2e-3)
            value = nums["result"][0]
        elif op in ("mask", "copy"):
            value = nums["result"][0]
        elif op == "softmax":
            total = one(panel["den"])
            assert sum(num(e) for e in panel["exps"]) + sum(num(r) for r in panel["rest"]) == pytest.approx(
                total, abs=2e-3)
            value = one(panel["num"]) / total
    return value


def check_cell(page, cell) -> float:
    """Open ``cell``'s panel (already clicked or focused) and check it recomputes the cell's number."""
    panel = page.locator(".derivation-panel:not([hidden])")
    assert panel.is_visible()
    text = cell.locator("text").text_content()
    if not text.strip():  # a value the step does not show has no words: its name says it in full
        assert "hidden-value" in cell.get_attribute("class")
        text = re.search(r": (−∞|minus infinity|[−\d.]+)(?:\.| in full)", cell.get_attribute("aria-label")).group(1)
        text = "−∞" if text == "minus infinity" else text
    shown = num(text)
    value = panel_recomputes(page)
    digits = len(text.split(".")[-1]) if "." in text else 0
    if shown == float("-inf"):
        assert value == float("-inf")
    else:
        assert value == pytest.approx(shown, abs=0.6 * 10 ** -digits + 2e-3)
    outside = page.evaluate(OUTSIDE_STAGE)
    assert outside == [], outside
    return value


# After a step is drawn: its caption, whatever leaves the stage and any text under the floor (one round
# trip per step).
STEP_SEEN = f"""async () => {{
  await ({DRAWN})();
  return [document.querySelector('#caption').innerText, ({OUTSIDE_STAGE})(), ({SMALL_TEXT})()];
}}"""


def walk_captions(page, captions: list[str]) -> None:
    """Step through a deck with →, from its first step: each step shows its own caption, nothing
    leaves the stage and no text is under the type floor at 1280×720 (index numbers 16 px, the rest 20)."""
    for i, caption in enumerate(captions):
        shown, outside, small = page.evaluate(STEP_SEEN)
        assert shown == caption, i
        assert outside == [], (i, caption)
        assert small == [], f"text under the type floor at 1280×720 on step {i + 1} ({caption}): {small}"
        if i < len(captions) - 1:
            page.keyboard.press("ArrowRight")


def goto_slide(page, slide_id: str, step: int = 1) -> None:
    """Jump by URL to step ``step`` of the slide ``slide_id`` and wait until the player is there."""
    number = page.evaluate(f"window.attentionTalk.player.slides.findIndex(s => s.id === '{slide_id}') + 1")
    page.evaluate(f"location.hash = '#/{number}/{step}'")
    # data-drawn: the stage holds that step's frame (data-step is set first, while a frame not yet
    # fetched is on its way; on a busy machine that can take a while).
    page.wait_for_function(f"() => document.querySelector('#player').dataset.drawn === '{slide_id}/{step}'",
                           timeout=60_000)
