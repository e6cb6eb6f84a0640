"""Questions in a live room, in real Chromium, on two ``attention-talk serve`` processes sharing a
``redis-server`` (tests/quiz_decks): the speaker view (server A) starts a room on a question step,
its audience window beside it; one follower joins on server A, one on server B (a phone); the phone
remote joins too. Each follower answers; the speaker view counts both and the audience window shows
the spread (never the answer); the presenter steps on, which reveals: each follower sees the answer
with its own guess; the remote then moves everyone on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from redis_server import REDIS, RedisServer, two_servers

DECK = "quiz-demo"
DECKS = Path(__file__).resolve().parents[1] / "quiz_decks"
pytestmark = pytest.mark.skipif(REDIS is None and not os.environ.get("CI"), reason="redis-server is not installed")


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    with two_servers(RedisServer(tmp_path_factory.mktemp("redis")), DECKS, DECK) as (_, servers):
        yield [url for _, url in servers]


def test_a_room_answers_counts_reveals_and_each_follower_sees_its_guess(page, browser, two) -> None:
    a, b = two
    speaker = page
    speaker.goto(f"{a}/talk/{DECK}/presenter#/1/6")
    speaker.wait_for_selector("#presenter.ready", state="attached", timeout=60_000)
    audience = speaker.context.new_page()
    audience.goto(f"{a}/talk/{DECK}#/1/6")
    audience.wait_for_selector("#player.ready", state="attached", timeout=60_000)
    speaker.keyboard.press("r")
    speaker.wait_for_selector('.room-bar[data-room="live"]', timeout=30_000)
    speaker.wait_for_function("() => document.querySelector('#room-tally').textContent === '0 answers'", timeout=30_000)
    saved = json.loads(speaker.evaluate(f"sessionStorage.getItem('attention-talk-room:{DECK}')"))
    laptop = browser.new_context(viewport={"width": 1280, "height": 720})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    remote_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        one, two_ = laptop.new_page(), phone.new_page()
        one.goto(saved["join_url"])  # server A
        two_.goto(saved["join_url"].replace(a, b))  # server B
        picks = {}
        for follower, nth in ((one, 0), (two_, 1)):
            follower.wait_for_selector('#live-badge[data-live="live"]', timeout=30_000)
            follower.wait_for_selector(":root:has(#quiz-panel[data-mode='ask']) .quiz-choice", timeout=30_000)
            assert follower.query_selector(".quiz-skip") is None  # in a room: answer or not, no skip
            follower.click(f".quiz-choice >> nth={nth}")
            follower.wait_for_function(
                "() => document.querySelector('.quiz-note').textContent.startsWith('Your answer is in')",
                timeout=30_000)
            picks[follower] = nth
        speaker.wait_for_function("() => document.querySelector('#room-tally').textContent === '2 answers'",
                                  timeout=30_000)
        audience.wait_for_function("() => document.querySelector('#quiz-count')?.textContent === '2 answers'",
                                   timeout=30_000)
        assert audience.query_selector("#quiz-answer") is None  # the spread, not the answer
        counts = [b.get_attribute("aria-label") for b in audience.query_selector_all(".quiz-bar")]
        choices = audience.evaluate("window.attentionTalk.frames.peek('softmax', 6).question.choices")
        assert counts[0] == f"{choices[0]}: 1" and counts[1] == f"{choices[1]}: 1"
        remote = remote_ctx.new_page()
        remote.goto(saved["remote_url"])
        remote.wait_for_selector('#remote[data-status="live"]', state="attached", timeout=30_000)

        speaker.keyboard.press("ArrowRight")  # the presenter steps on: the question is revealed
        speaker.wait_for_function("() => document.querySelector('#room-tally').textContent.endsWith('revealed')",
                                  timeout=30_000)
        # the follower's player holds step 7's frame once it has stepped there (later on a busy machine)
        one.wait_for_function("() => window.attentionTalk.frames.peek('softmax', 7) != null", timeout=30_000)
        answer = one.evaluate("window.attentionTalk.frames.peek('softmax', 7).reveal.answer[0]")
        for follower, nth in picks.items():
            follower.wait_for_selector("#quiz-panel[data-mode='reveal']", timeout=30_000)
            right = follower.get_attribute("#quiz-panel", "data-right")
            assert right == ("true" if nth == answer else "false")
            if nth != answer:
                assert choices[nth] in follower.inner_text("#quiz-off")  # its own guess
        remote.locator("#remote-next").tap()  # the remote moves everyone on, to the next question
        for follower in picks:
            follower.wait_for_selector("#quiz-panel[data-mode='ask'] .quiz-slider", timeout=30_000)
    finally:
        for ctx in (laptop, phone, remote_ctx):
            ctx.close()
