"""The shipped decks' questions on a stage, in Chromium: every question step (found in the frames, not
listed here) asks in the caption bar's own height, so the drawing keeps the size it has without the
question; its text stays at or above the 20 px floor at 1280×720; a token question's choices are the
drawing's own labels when it draws them; the reveal's line fits too and its derivation opens on "Why?".
Waits are for conditions, with generous ceilings."""

from __future__ import annotations

import json
from urllib.parse import quote
from urllib.request import urlopen

import pytest
from stage_probe import BOTTOM_LINE

DECKS = ["attention-step-by-step", "attention-walkthrough", "real-heads", "deepseek-attention"]
FLOOR = 20  # CSS px at 1280×720


def question_steps(server_url: str) -> list[tuple[str, int, int, dict]]:
    out = []
    for deck in DECKS:
        manifest = json.load(urlopen(f"{server_url}/api/decks/{deck}", timeout=120))
        for n, slide in enumerate(manifest["slides"], start=1):
            body = json.load(urlopen(f"{server_url}/api/decks/{deck}/slides/{quote(slide['id'])}/frames", timeout=120))
            for frame in body["frames"]:
                if frame.get("question"):
                    out.append((deck, n, frame["step"], frame["question"]))
    return out


@pytest.fixture(scope="module")
def questions(server_url):
    return question_steps(server_url)


def test_the_decks_ask_at_least_six_questions_in_three_decks(questions) -> None:
    assert len(questions) >= 6
    assert len({deck for deck, *_ in questions}) >= 3


# The bar's height and the drawing's scale (views/room.js) as they are, then with the question taken
# out of the bar (the caption back): a question may not make the bar taller nor the drawing smaller.
MEASURE = """() => {
  const bar = document.querySelector('#stage .caption-bar');
  const canvas = document.querySelector('#stage .slide.active .canvas');
  const t = getComputedStyle(canvas).transform;
  const scale = () => new DOMMatrix(t === 'none' ? '' : t).a;
  const panel = document.querySelector('#quiz-panel');
  const withQ = { h: bar.offsetHeight, docked: panel.classList.contains('quiz-docked') && !panel.hidden };
  const modes = ['quiz-on', 'quiz-reveal'].filter((c) => bar.classList.contains(c));
  panel.hidden = true; bar.classList.remove(...modes);
  const without = { h: bar.offsetHeight };
  panel.hidden = false; bar.classList.add(...modes);
  return { withQ, without, scale: scale() };
}"""

# The smallest rendered type of the panel's visible text, in CSS px (the stage's scale included).
SMALLEST = """() => {
  const el = document.querySelector('#stage');
  const stage = el.getBoundingClientRect().width / el.offsetWidth;
  let min = Infinity, what = '';
  const walk = document.createTreeWalker(document.querySelector('#quiz-panel'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el.getClientRects().length || el.closest('[hidden]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    const px = parseFloat(getComputedStyle(el).fontSize) * stage;
    if (px < min) { min = px; what = n.textContent.trim(); }
  }
  return [min, what];
}"""


def open_question(page, server_url: str, deck: str, slide: int, step: int, q: dict) -> None:
    page.goto("about:blank")  # a fresh load each time: a hash change within a deck would not reload
    page.goto(f"{server_url}/talk/{deck}#/{slide}/{step}")
    page.wait_for_function("(p) => { const el = document.querySelector("
                           "'#quiz-panel.quiz-docked[data-mode=ask]:not([hidden]) #quiz-prompt');"
                           " return el && el.textContent === p; }", arg=q["prompt"], timeout=60_000)


def settle(page) -> None:
    page.wait_for_function("() => !document.getAnimations().some((a) => a.playState === 'running')", timeout=30_000)


def guess_and_reveal(page, server_url: str, deck: str, slide: int, step: int, q: dict) -> None:
    """Open question `q`, guess (the first choice, or the slider's low end), step on to its reveal."""
    open_question(page, server_url, deck, slide, step, q)
    if q["kind"] in ("token", "cell"):
        page.click(".quiz-choice >> nth=0")
    elif q["kind"] == "estimate":
        page.fill(".quiz-slider", "0")
        page.click(".quiz-answer")
    else:
        for i in range(len(q["choices"])):
            page.click(f".quiz-choice >> nth={i}")
        page.click(".quiz-answer")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#quiz-panel.quiz-docked[data-mode='reveal'] #quiz-verdict", timeout=60_000)
    settle(page)


def test_every_question_asks_in_the_bar_and_on_the_drawing(page, server_url, questions) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    for deck, slide, step, q in questions:
        where = f"{deck} #/{slide}/{step}"
        open_question(page, server_url, deck, slide, step, q)
        settle(page)
        m = page.evaluate(MEASURE)
        assert m["withQ"]["docked"], where
        assert m["withQ"]["h"] <= m["without"]["h"] + 1, (where, m)
        assert m["scale"] == pytest.approx(1.0, abs=1e-3), (where, m)  # nothing made room for the question
        small, text = page.evaluate(SMALLEST)
        assert small >= FLOOR - 0.01, (where, small, text)
        if q["kind"] == "token" and page.query_selector("#stage .slide.active svg .quiz-choice"):
            drawn = [e.text_content().strip() for e in page.query_selector_all("#stage .slide.active .quiz-choice")]
            assert drawn == q["choices"], where
            boxes = page.query_selector_all("#stage .slide.active rect.quiz-target")
            assert len(boxes) == len(q["choices"]), where
        elif q["kind"] == "token":
            buttons = page.eval_on_selector_all("#quiz-panel .quiz-choice", "els => els.map(e => e.textContent)")
            assert buttons == q["choices"], where


def test_every_reveal_fits_the_bar_and_opens_its_derivation(page, server_url, questions) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    for deck, slide, step, q in questions:
        where = f"{deck} #/{slide}/{step}"
        guess_and_reveal(page, server_url, deck, slide, step, q)
        m = page.evaluate(MEASURE)
        assert m["withQ"]["h"] <= m["without"]["h"] + 1, (where, m)
        drawn = page.evaluate("() => { const p = window.attentionTalk.player; return p.currentSlide"
                              " && window.attentionTalk.frames.peek(p.currentSlide.id, p.state.step)?.reveal; }")
        assert drawn and drawn["question"]["id"] == q["id"], where
        cell = page.evaluate("""([name, [r, c]]) => {
            const g = [...document.querySelectorAll('#stage .slide.active .canvas > .tensor')]
              .find((t) => t.dataset.tensor === name);
            if (!g) return null;
            const boxes = g.querySelectorAll('.quiz-answer-box');
            if (boxes.length !== 1) return { boxes: boxes.length };
            const b = boxes[0].getBoundingClientRect();
            const inside = (el) => { const q = el.getBoundingClientRect();
              const x = q.x + q.width / 2, y = q.y + q.height / 2;
              return x > b.left && x < b.right && y > b.top && y < b.bottom; };
            const cells = [...g.querySelectorAll('.cell')];
            const own = cells.filter((el) => el.dataset.r === String(r) && el.dataset.c === String(c));
            return { boxes: 1, own: own.length === 1 && inside(own[0].querySelector('rect')),
                     others: cells.filter((el) => !own.includes(el) && inside(el.querySelector('rect'))).length }; }""",
            [drawn["tensor"], drawn["cell"]])
        # the answer's cell outlined once, on the tensor it was read from, around that cell alone
        assert cell == {"boxes": 1, "own": True, "others": 0}, (where, cell)
        assert page.evaluate(BOTTOM_LINE) == [], where  # the answer's line clear of the position line
        assert page.is_hidden(".quiz-derivation"), where
        page.click(".quiz-why")
        page.wait_for_selector(".quiz-derivation li", state="visible", timeout=10_000)
        small, text = page.evaluate(SMALLEST)
        assert small >= FLOOR - 0.01, (where, small, text)
        box = page.eval_on_selector(".quiz-derivation", "e => e.getBoundingClientRect().toJSON()")
        assert box["top"] >= 0 and box["bottom"] <= 720, (where, box)


@pytest.mark.parametrize("size", [(1920, 1080), (1366, 768), (1024, 768)])
def test_every_answers_line_keeps_clear_of_the_corners(page, server_url, questions, size) -> None:
    """After a guess the answer's line is at its longest ("You picked … Why?"): at other window sizes
    too, it never covers the position line (nor the position it), and stays on the window."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    for deck, slide, step, q in questions:
        guess_and_reveal(page, server_url, deck, slide, step, q)
        assert page.evaluate(BOTTOM_LINE) == [], (deck, slide, step, size)
