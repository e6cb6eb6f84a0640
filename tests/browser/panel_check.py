"""Read an open derivation panel in the browser and redo its arithmetic (shared by both chapters)."""

from __future__ import annotations

import pytest

OUTSIDE_STAGE = """() => {
  const s = document.querySelector('#stage').getBoundingClientRect();
  const bad = [];
  for (const el of document.querySelectorAll('.slide.active *, .derivation-panel:not([hidden])')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    if (r.left < s.left - 1 || r.top < s.top - 1 || r.right > s.right + 1 || r.bottom > s.bottom + 1) {
      bad.push(el.tagName + '.' + (el.className.baseVal ?? el.className));
    }
  }
  return bad;
}"""


def num(text: str) -> float:
    text = text.strip().replace("−", "-")
    return float("-inf") if text == "-∞" else float(text)


def panel_recomputes(page) -> float:
    """Read the open derivation panel's numbers and redo its arithmetic; return the implied value."""
    panel = page.locator(".derivation-panel:not([hidden])")
    value = None
    for line in panel.locator(".deriv-line[data-op]").all():
        op = line.get_attribute("data-op")
        nums = {}
        for el in line.locator(".num").all():
            nums.setdefault(el.get_attribute("data-role"), []).append(num(el.inner_text()))
        if op in ("sum", "add"):
            products = zip(nums.get("a", [1.0] * len(nums["b"])), nums["b"], strict=True)  # add: b alone
            total = sum(a * b for a, b in products) + sum(nums.get("rest", []))
            shown_total = num(line.locator("xpath=following-sibling::li[1]").locator(".num").inner_text())
            assert total == pytest.approx(shown_total, abs=2e-3 * (1 + len(nums["b"])))
            value = shown_total
        elif op == "scale":
            assert value * nums["factor"][0] == pytest.approx(nums["result"][0], abs=2e-3)
            value = nums["result"][0]
        elif op in ("mask", "copy"):
            value = nums["result"][0]
        elif op == "softmax":
            exps = panel.locator(".deriv-exps .num[data-role='e']").all_inner_texts()
            rest = panel.locator(".deriv-exps .num[data-role='rest']").all_inner_texts()
            total = num(panel.locator(".num[data-role='den']").inner_text())
            assert sum(num(e) for e in exps) + sum(num(r) for r in rest) == pytest.approx(total, abs=2e-3)
            value = num(panel.locator(".num[data-role='num']").inner_text()) / total
    return value


def check_cell(page, cell) -> float:
    """Open ``cell``'s panel (already clicked or focused) and check it recomputes the cell's number."""
    panel = page.locator(".derivation-panel:not([hidden])")
    assert panel.is_visible()
    text = cell.locator("text").text_content()
    shown = num(text)
    value = panel_recomputes(page)
    digits = len(text.split(".")[-1]) if "." in text else 0
    if shown == float("-inf"):
        assert value == float("-inf")
    else:
        assert value == pytest.approx(shown, abs=0.6 * 10 ** -digits + 2e-3)
    assert page.evaluate(OUTSIDE_STAGE) == []
    return value
