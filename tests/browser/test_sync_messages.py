"""The speaker-view channel trusts nothing: a same-origin page can post to it, so every malformed
message is dropped and only a well-formed state for this deck moves the talk."""

from __future__ import annotations

import pytest
from url_probe import wait_hash

DECK = "attention-step-by-step"

BAD = [
    "'<img src=x>'",
    "{type: 'state', deck: D, slide: '<img src=x>', step: 1, paused: false}",
    "{type: 'state', deck: D, slide: 3, step: '2', paused: false}",
    "{type: 'state', deck: D, slide: 2.5, step: 1, paused: false}",
    "{type: 'state', deck: D, slide: 999, step: 1, paused: false}",
    "{type: 'state', deck: D, slide: 3, step: 99, paused: false}",
    "{type: 'state', deck: D, slide: -1, step: 1, paused: false}",
    "{type: 'state', deck: D, slide: 3, step: 1, paused: 'purple'}",
    "{type: 'state', deck: D, slide: 3, step: 1}",
    "{type: 'state', deck: D, slide: 3, step: 1, paused: false, extra: 1}",
    "{type: 'state', deck: 'other-deck', slide: 3, step: 1, paused: false}",
    "{type: 'jump', deck: D, slide: 3, step: 1, paused: false}",
    "[{type: 'state', deck: D, slide: 3, step: 1, paused: false}]",
    "null",
    "{type: 'hello', deck: D, since: 'yesterday'}",
]


def post(page, expr: str) -> None:
    page.evaluate(f"""() => {{
      const D = {DECK!r};
      const ch = new BroadcastChannel('attention-talk:' + D);
      ch.postMessage({expr});
      ch.close();
    }}""")


@pytest.fixture
def talk_and_intruder(page, server_url, open_talk):
    talk = open_talk(DECK, "#/2/1")
    intruder = page.context.new_page()
    intruder.goto(f"{server_url}/healthz")  # any same-origin page can reach the channel
    yield talk, intruder
    intruder.close()


def where(talk) -> tuple[str, str]:
    root = talk.locator("#player")
    return root.get_attribute("data-slide"), root.get_attribute("data-step")


def test_malformed_messages_are_dropped(talk_and_intruder, watch) -> None:
    talk, intruder = talk_and_intruder
    before = where(talk)
    for expr in BAD:
        post(intruder, expr)
    talk.wait_for_timeout(300)
    assert where(talk) == before
    assert talk.evaluate("location.hash") == "#/2/1"
    watch.assert_clean()


def test_a_well_formed_state_moves_the_talk(talk_and_intruder) -> None:
    talk, intruder = talk_and_intruder
    post(intruder, "{type: 'state', deck: D, slide: 3, step: 2, paused: false}")
    assert wait_hash(talk, "#/3/2") == "#/3/2"
