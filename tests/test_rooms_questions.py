"""Questions in a live room, in process (tests/quiz_decks/quiz-demo.yaml: a token question on step 6,
an estimate on step 8): followers answer, the presenter gets the live tally (never the answer),
answers change until the reveal, a reconnecting follower keeps its answer; and every refusal: an
answer for a question not asked or at a step without one, out of range, after the reveal, from a
presenter socket, a follower's reveal, floods and loosely typed picks. The hubs' counts against a
plain oracle (the last answer of each token), in process and (tests/test_rooms_redis.py) in Redis."""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from attention_talk.rooms import InProcessHub
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from attention_talk.web.store import Store
from fresh_loop import run

DECK = "quiz-demo"
DECKS = Path(__file__).resolve().parent / "quiz_decks"
TOKEN_Q, ESTIMATE_Q = (1, 6), (1, 8)


OPEN: list = []  # every socket a test opened, closed after it (the test client waits for each)


@pytest.fixture(scope="module")
def rooms():
    app = create_app(Settings(room_rate_limit=10, room_starts_per_minute=10_000), store=Store.load(DECKS))
    with TestClient(app, base_url="http://talk.test") as client:
        yield client


@pytest.fixture(autouse=True)
def close_sockets():
    yield
    while OPEN:
        with contextlib.suppress(Exception):
            OPEN.pop().__exit__(None, None, None)


def connect(client, code: str):
    ws = client.websocket_connect(f"/ws/rooms/{code}")
    OPEN.append(ws)
    return ws.__enter__()


def send(ws, **msg) -> None:
    ws.send_text(orjson.dumps(msg).decode())


def next_of(ws, kind: str, most: int = 12) -> dict:
    """The next message of ``kind`` (states and follower counts come and go between)."""
    for _ in range(most):
        if (msg := ws.receive_json())["type"] == kind:
            return msg
    raise AssertionError(f"no {kind} in {most} messages")


def refused(ws) -> tuple[dict, int]:
    while (msg := ws.receive_json())["type"] != "error":
        pass
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    return msg, closed.value.code


def open_room(client, at=TOKEN_Q):
    room = client.post("/api/rooms", json={"deck": DECK}).json()
    presenter = connect(client, room["code"])
    send(presenter, type="hello", role="presenter", secret=room["presenter_secret"])
    next_of(presenter, "state")
    send(presenter, type="go", slide=at[0], step=at[1], paused=False)
    return room, presenter


def follower(client, room, token=None):
    ws = connect(client, room["code"])
    send(ws, type="hello", role="follower", **({"token": token} if token else {}))
    return ws


def test_followers_answer_the_presenter_sees_the_tally_then_reveals(rooms) -> None:
    room, presenter = open_room(rooms)
    assert next_of(presenter, "tally")["answered"] == 0  # the step asks: the tally so far
    a, b = follower(rooms, room, "a" * 20), follower(rooms, room, "b" * 20)
    send(a, type="answer", slide=1, step=6, pick=[1])
    assert next_of(a, "yours") == {"type": "yours", "slide": 1, "step": 6, "pick": [1]}
    send(b, type="answer", slide=1, step=6, pick=[2])
    next_of(b, "yours")
    tally = next_of(presenter, "tally")
    while tally["answered"] < 2:
        tally = next_of(presenter, "tally")
    assert tally["counts"] == {"1": 1, "2": 1} and tally["revealed"] is False
    assert "answer" not in tally and set(tally) == {"type", "slide", "step", "answered", "counts", "revealed"}
    send(a, type="answer", slide=1, step=6, pick=[2])  # changed its mind: still one answer each
    next_of(a, "yours")
    while (tally := next_of(presenter, "tally"))["counts"] != {"2": 2}:
        pass
    assert tally["answered"] == 2
    a.close()
    again = follower(rooms, room, "a" * 20)  # reconnects: its answer is still its own
    assert next_of(again, "yours")["pick"] == [2]
    send(presenter, type="reveal", slide=1, step=6)
    while not (tally := next_of(presenter, "tally"))["revealed"]:
        pass
    assert tally["counts"] == {"2": 2}
    send(again, type="answer", slide=1, step=6, pick=[0])
    msg, code = refused(again)
    assert code == 4409 and "revealed" in msg["message"]
    for ws in (b, presenter):
        ws.close()


def test_any_presenter_socket_moving_onto_the_reveal_step_reveals(rooms) -> None:
    """The phone remote sends only moves: a move from the question step to the step after it (its
    reveal) closes the question on the server, as the speaker view's ``reveal`` does; so does a jump
    onto the reveal step from anywhere. A move elsewhere closes nothing."""
    room, presenter = open_room(rooms)
    next_of(presenter, "tally")
    a = follower(rooms, room, "a" * 20)
    send(a, type="answer", slide=1, step=6, pick=[3])
    next_of(a, "yours")
    remote = connect(rooms, room["code"])
    send(remote, type="hello", role="presenter", secret=room["presenter_secret"])
    next_of(remote, "state")
    send(remote, type="go", slide=1, step=5, paused=False)  # back a step: nothing revealed
    send(remote, type="go", slide=1, step=6, paused=False)
    assert next_of(remote, "tally") == {"type": "tally", "slide": 1, "step": 6, "answered": 1, "counts": {"3": 1},
                                        "revealed": False}
    send(remote, type="go", slide=1, step=7, paused=False)  # no reveal message: the move reveals
    while not (tally := next_of(presenter, "tally"))["revealed"]:
        pass
    assert (tally["slide"], tally["step"], tally["counts"]) == (1, 6, {"3": 1})
    send(remote, type="go", slide=1, step=6, paused=False)  # back on the question: answers stay closed
    while not next_of(remote, "tally")["revealed"]:  # (an earlier count, sent late, may come first)
        pass
    next_of(a, "state")
    send(a, type="answer", slide=1, step=6, pick=[0])
    msg, code = refused(a)
    assert code == 4409 and "revealed" in msg["message"]
    send(remote, type="go", slide=1, step=9, paused=False)  # a jump onto the estimate's reveal step
    while (tally := next_of(presenter, "tally"))["step"] != 8:
        pass
    assert tally["revealed"] is True and tally["answered"] == 0
    for ws in (remote, presenter):
        ws.close()


ANSWER = {"type": "answer", "slide": 1, "step": 6}


@pytest.mark.parametrize(("who", "msg", "code", "words"), [
    ("follower", {**ANSWER, "step": 5, "pick": [0]}, 1008, "slide 1 step 5 is not the room's current step"),
    ("follower", {**ANSWER, "pick": [7]}, 1008, "pick: out of range for this token question"),
    ("follower", {**ANSWER, "pick": [0, 1]}, 1008, "pick: out of range"),
    ("follower", {**ANSWER, "pick": [True]}, 1008, "pick.0: Input should be a valid integer"),
    ("follower", {**ANSWER, "pick": [-1]}, 1008, "pick.0: Input should be greater"),
    ("follower", {**ANSWER, "pick": list(range(9))}, 1008, "pick: List should have at most 8"),
    ("follower", {"type": "answer", "slide": 1, "step": 6}, 1008, "pick: Field required"),
    ("follower", {"type": "reveal", "slide": 1, "step": 6}, 4403, "reveal: only the presenter may reveal"),
    ("presenter", {"type": "answer", "slide": 1, "step": 6, "pick": [0]}, 4403, "answer: the presenter asks"),
    ("presenter", {"type": "reveal", "slide": 1, "step": 5}, 1008, "slide 1 step 5 is not the room's current step"),
])
def test_bad_answers_and_reveals_are_refused(rooms, who, msg, code, words) -> None:
    room, presenter = open_room(rooms)
    ws = follower(rooms, room) if who == "follower" else presenter
    send(ws, **msg)
    error, closed = refused(ws)
    assert closed == code and words in error["message"], error
    if who == "follower":
        presenter.close()


def test_no_question_on_the_step_and_a_token_in_the_hello_is_checked(rooms) -> None:
    room, presenter = open_room(rooms, at=(1, 5))
    ws = follower(rooms, room)
    send(ws, type="answer", slide=1, step=5, pick=[0])
    error, code = refused(ws)
    assert code == 1008 and "slide 1 step 5 asks no question" in error["message"]
    ws = connect(rooms, room["code"])
    send(ws, type="hello", role="follower", token="short")
    error, code = refused(ws)
    assert code == 1008 and error["message"].startswith("token: String should match pattern")
    presenter.close()


def test_a_flood_of_answers_is_cut_off(rooms) -> None:
    room, presenter = open_room(rooms)
    ws = follower(rooms, room)
    for k in range(40):  # the bucket holds 20 (rate 10 a second, bursts of 2 seconds)
        try:
            send(ws, type="answer", slide=1, step=6, pick=[k % 7])
        except Exception:  # closed under us: what the test wants
            break
    error, code = refused(ws)
    assert code == 4429 and error["message"] == "too many messages: slow down"
    presenter.close()


answers = st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 6)), max_size=40)


@settings(max_examples=40, deadline=None)
@given(answers, st.integers(0, 40))
def test_the_in_process_hub_counts_the_last_answer_of_each_token(seq, reveal_at) -> None:
    async def play():
        hub = InProcessHub(idle_timeout=60)
        room = await hub.create(DECK)
        last: dict[str, int] = {}
        for n, (token, pick) in enumerate(seq):
            if n == reveal_at:
                await hub.reveal(room.code, 1, 6)
            tally = await hub.answer(room.code, 1, 6, token * 16, [pick])
            if n < reveal_at:
                last[token] = pick
            assert tally.revealed == (n >= reveal_at)
        tally = await hub.tally(room.code, 1, 6)
        oracle = Counter(str(p) for p in last.values())
        assert tally.answered == len(last) and tally.counts == dict(oracle)
        for token, pick in last.items():
            assert await hub.mine(room.code, 1, 6, token * 16) == [pick]
        assert (await hub.tally(room.code, 1, 8)).answered == 0  # another question counts apart

    run(play())
