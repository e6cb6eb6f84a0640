"""A question step, alone, in Chromium (tests/quiz_decks/quiz-demo.yaml): the panel asks; a guess, then
the next step shows the answer (the frame's, computed by the engine), right or wrong, how far off and
the derivation; a skip shows it too; going straight to the reveal asks first; and a phone gets big
targets. Waits are for conditions, with generous ceilings."""

from __future__ import annotations

from pathlib import Path

import pytest
from live_server import live_server

from attention_talk.web import create_app
from attention_talk.web.settings import Settings

DECKS = Path(__file__).resolve().parents[1] / "quiz_decks"


@pytest.fixture(scope="module")
def quiz_url():
    with live_server(create_app(Settings(decks_dir=DECKS))) as url:
        yield url


def open_at(page, url: str, hash_: str):
    page.goto(f"{url}/talk/quiz-demo{hash_}")
    page.wait_for_selector("#player.ready", state="attached", timeout=60_000)
    return page


def frame_of(page, step: int) -> dict:
    """The step's frame, once the player holds it: a step opened by its link fetches its own frame first
    and the slide's others after the paint, later on a busy machine."""
    page.wait_for_function(f"""() => window.attentionTalk.frames.peek("softmax", {step}) != null""", timeout=60_000)
    return page.evaluate(f"""() => window.attentionTalk.frames.peek("softmax", {step})""")


def test_guess_then_reveal_with_the_derivation(page, quiz_url) -> None:
    open_at(page, quiz_url, "#/1/6")
    page.wait_for_selector(":root:has(#quiz-panel[data-mode='ask']) .quiz-choice", timeout=30_000)
    asked = frame_of(page, 6)["question"]
    reveal = frame_of(page, 7)["reveal"]
    # on a stage the choices are the drawing's own labels (SVG text), boxed and focusable
    assert [b.text_content().strip() for b in page.query_selector_all(".quiz-choice")] == asked["choices"]
    assert page.query_selector("#quiz-panel .quiz-choice") is None
    focusable = page.eval_on_selector_all(".quiz-choice", "els => els.map(e => e.closest('svg') !== null && "
                                          "e.getAttribute('role') === 'button' && e.tabIndex === 0)")
    assert focusable == [True] * len(asked["choices"])
    assert page.inner_text("#quiz-prompt") == asked["prompt"]
    assert "answer" not in asked
    wrong = next(i for i in range(len(asked["choices"])) if i != reveal["answer"][0])
    page.click(f".quiz-choice >> nth={wrong}")
    page.wait_for_selector(".quiz-choice[aria-pressed='true']", timeout=10_000)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#quiz-panel[data-mode='reveal']", timeout=30_000)
    assert page.inner_text("#quiz-answer") == reveal["text"]
    assert page.get_attribute("#quiz-panel", "data-right") == "false"
    off = page.inner_text("#quiz-off")
    assert reveal["figures"][0][wrong] in off and reveal["figures"][0][reveal["answer"][0]] in off
    assert page.is_hidden(".quiz-derivation")  # on a stage the derivation opens on "Why?"
    page.click(".quiz-why")
    page.wait_for_selector(".quiz-derivation li", state="visible", timeout=10_000)
    assert [li.inner_text() for li in page.query_selector_all(".quiz-derivation li")] == reveal["derivation"]
    page.keyboard.press("ArrowLeft")  # back: the guess is kept; now the right one
    page.wait_for_selector(":root:has(#quiz-panel[data-mode='ask']) .quiz-choice[aria-pressed='true']", timeout=30_000)
    page.focus(f".quiz-choice >> nth={reveal['answer'][0]}")  # a key picks a focused label
    page.keyboard.press("Enter")
    page.wait_for_selector(f".quiz-choice[aria-pressed='true'] >> text={asked['choices'][reveal['answer'][0]]}",
                           timeout=30_000)
    # the choices are drawn again with the pick: the picked label keeps the focus (it fell to the page)
    assert page.evaluate("() => document.activeElement.matches('.quiz-choice[aria-pressed=true]')"
                         " && document.activeElement.textContent.trim()") == asked["choices"][reveal["answer"][0]]
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#quiz-panel[data-right='true']", timeout=30_000)
    assert page.inner_text("#quiz-verdict") == "Right."
    page.keyboard.press("ArrowRight")  # step 8 asks the next question: an estimate
    page.wait_for_selector("#quiz-panel[data-mode='ask'] .quiz-slider", timeout=30_000)
    page.evaluate("window.attentionTalk.player.go(1, 10)")  # a step without a question: no panel
    page.wait_for_selector("#quiz-panel", state="hidden", timeout=30_000)


def test_straight_to_the_reveal_asks_first_and_a_skip_shows_the_answer(page, quiz_url) -> None:
    open_at(page, quiz_url, "#/1/9")  # opened by its link: as stepped to without a guess, a skip
    page.wait_for_selector("#quiz-panel[data-right='skipped']", timeout=30_000)
    assert page.inner_text("#quiz-answer") == frame_of(page, 9)["reveal"]["text"]
    page.evaluate("sessionStorage.clear()")
    page.goto("about:blank")  # a new load (a hash change alone would not reload), no guesses kept
    open_at(page, quiz_url, "#/1/1")
    page.wait_for_selector("#quiz-panel", state="hidden", timeout=30_000)
    page.evaluate("window.attentionTalk.player.go(1, 9)")  # a jump within the talk: asked first
    page.wait_for_selector("#quiz-panel[data-mode='first']", timeout=30_000)
    assert page.query_selector("#quiz-answer") is None  # not shown before a guess or a skip
    page.click("text=Show the answer")
    page.wait_for_selector("#quiz-panel[data-right='skipped']", timeout=10_000)
    assert page.inner_text("#quiz-answer") == frame_of(page, 9)["reveal"]["text"]
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#quiz-panel[data-mode='ask'] .quiz-slider", timeout=30_000)
    marks = frame_of(page, 8)["question"]["marks"]
    page.fill(".quiz-slider", "0")
    page.wait_for_function(f"() => document.querySelector('.quiz-value').textContent === {marks[0]!r}", timeout=10_000)
    page.click(".quiz-answer")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#quiz-panel[data-mode='reveal'] #quiz-verdict", timeout=30_000)
    reveal = frame_of(page, 9)["reveal"]
    if reveal["answer"] != [0]:
        assert f"off by {reveal['figures'][0][0]}" in page.inner_text("#quiz-off")


def test_stepping_on_without_a_guess_is_a_skip(page, quiz_url) -> None:
    """A presenter's clicker (or a student moving on) from the question shows the answer, no stop."""
    open_at(page, quiz_url, "#/1/6")
    page.wait_for_selector("#quiz-panel[data-mode='ask']", timeout=30_000)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#quiz-panel[data-right='skipped']", timeout=30_000)
    assert page.inner_text("#quiz-answer") == frame_of(page, 7)["reveal"]["text"]
    assert page.inner_text("#quiz-verdict") == "You skipped this one."


def test_skip_moves_on_and_the_phone_gets_big_targets(page, quiz_url) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    open_at(page, quiz_url, "#/1/6")
    page.wait_for_selector(":root:has(#quiz-panel[data-mode='ask']) .quiz-choice", timeout=30_000)
    for b in page.query_selector_all(".quiz-choice, .quiz-skip"):
        box = b.bounding_box()
        assert box["height"] >= 48 and box["width"] >= 48, box
    page.click(".quiz-skip")
    page.wait_for_selector("#quiz-panel[data-right='skipped']", timeout=30_000)
    assert page.evaluate("location.hash") == "#/1/7"


# Boxes of the drawing the panel overlaps (more than 2 px each way), once the drawing has made room.
COVERS = """() => {
  const p = document.querySelector('#quiz-panel').getBoundingClientRect();
  const hits = [];
  for (const el of document.querySelectorAll(
      '.slide.active .canvas > .tensor, .slide.active .widget, .slide.active .note')) {
    const b = el.getBoundingClientRect();
    const w = Math.min(b.right, p.right) - Math.max(b.left, p.left);
    const h = Math.min(b.bottom, p.bottom) - Math.max(b.top, p.top);
    if (b.width > 2 && b.height > 2 && w > 2 && h > 2)
      hits.push(el.dataset.tensor || el.dataset.widget || el.dataset.note);
  }
  return hits;
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)])
@pytest.mark.parametrize("hash_", ["#/1/6", "#/1/7", "#/1/8"])
def test_on_a_stage_the_panel_covers_none_of_the_drawing(page, quiz_url, size, hash_) -> None:
    """The panel stands in the caption bar and the drawing shrinks towards the top to make room:
    asking (token, slider) and revealing, at a laptop's and a projector's size."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_at(page, quiz_url, hash_)
    page.wait_for_selector("#quiz-panel.quiz-docked:not([hidden])", timeout=30_000)
    if hash_ == "#/1/7":  # opened at the reveal by its link: shown as a skip
        page.wait_for_selector("#quiz-panel[data-mode='reveal']", timeout=30_000)
    page.wait_for_function(f"() => ({COVERS})().length === 0", timeout=10_000)
    assert page.evaluate(COVERS) == []
