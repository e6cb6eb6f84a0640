"""Chapter 1 in real Chromium: walk every step with →, captions follow, nothing leaves the stage."""

from __future__ import annotations

DECK = "attention-step-by-step"

OVERFLOW_JS = """() => {
  const stage = document.querySelector('#stage').getBoundingClientRect();
  const slide = document.querySelector('.slide.active');
  const out = [];
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('.steps')) continue;               // the visually hidden step list
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.left < stage.left - 1 || r.top < stage.top - 1 || r.right > stage.right + 1 || r.bottom > stage.bottom + 1)
      out.push(`${el.tagName}.${el.getAttribute('class') || ''}`);
  }
  const caption = document.querySelector('.caption-bar').getBoundingClientRect();
  if (caption.bottom > stage.bottom + 1) out.push('caption-bar');
  return out;
}"""


def test_walk_every_step(open_talk, watch, server_url) -> None:
    page = open_talk(DECK)
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    steps = [(i + 1, j + 1, c) for i, s in enumerate(manifest["slides"]) for j, c in enumerate(s["captions"])]
    assert len(steps) >= 40
    for n, (slide, step, caption) in enumerate(steps):
        if n:
            page.keyboard.press("ArrowRight")
        page.wait_for_function(
            f"document.querySelector('#player').dataset.step === '{step}' && location.hash === '#/{slide}/{step}'")
        assert page.locator("#caption").inner_text() == caption
        page.wait_for_timeout(30)
        assert page.evaluate(OVERFLOW_JS) == [], (slide, step, caption)
    watch.assert_clean()


def test_counter_is_drawn_from_the_frame(open_talk) -> None:
    page = open_talk(DECK, "#/6/3")
    chip = page.locator('#slide-query-matrix .counter-chip[data-counter="flops"] .value')
    chip.wait_for()
    assert chip.inner_text() == "1,835,008"


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
    page.wait_for_function("document.querySelector('#player').dataset.slide === 'values'")
    page.keyboard.press("ArrowRight")  # focus left the hidden slide, so arrows step again
    assert page.locator("#player").get_attribute("data-step") == "2"
