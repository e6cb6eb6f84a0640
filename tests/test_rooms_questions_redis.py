"""Questions across two ``attention-talk serve`` processes sharing a real ``redis-server`` (append-only,
fsync always), on the quiz demo deck (tests/quiz_decks): followers on both servers answer, the
presenter's tally counts them all; a killed server's follower reconnects to the other and keeps its
answer, none lost; Redis killed and restarted mid-question loses none; the reveal closes answers on
every server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from fresh_loop import run
from redis_server import REDIS, RedisServer, two_servers
from test_rooms_redis import new_room, rejoin, ws_url

DECK = "quiz-demo"
DECKS = Path(__file__).resolve().parent / "quiz_decks"
pytestmark = pytest.mark.skipif(REDIS is None and not os.environ.get("CI"),
                                reason="redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="module")
def quiz_cluster(tmp_path_factory):
    with two_servers(RedisServer(tmp_path_factory.mktemp("redis")), DECKS, DECK) as running:
        yield running


async def follower(url: str, code: str, token: str):
    ws = await connect(ws_url(url, code), open_timeout=10)
    await ws.send(json.dumps({"type": "hello", "role": "follower", "token": token}))
    return ws


async def next_of(ws, kind: str, wanted=lambda m: True, timeout: float = 20) -> dict:
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), timeout))
        if msg["type"] == kind and wanted(msg):
            return msg


async def tally_once_redis_is_back(url: str, room: dict) -> tuple:
    """A presenter rejoining after Redis restarted, and the tally it is sent. The server's Redis
    client finds its old connections dead on first use after the restart: a presenter that joined in
    that moment rejoins, as the page does, until the tally comes (a minute at most)."""
    deadline = asyncio.get_running_loop().time() + 60
    while True:
        presenter, _ = await rejoin(url, room["code"], room["presenter_secret"])
        try:
            return presenter, await next_of(presenter, "tally", timeout=5)
        except Exception:
            with contextlib.suppress(Exception):
                await presenter.close()
            if asyncio.get_running_loop().time() > deadline:
                raise


async def answer_refused_after_reveal(ws) -> None:
    """An answer to 1/6 once it is revealed: the socket is closed with 4409."""
    await ws.send(json.dumps({"type": "answer", "slide": 1, "step": 6, "pick": [0]}))
    with pytest.raises(Exception) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), 20)
    assert getattr(closed.value, "rcvd", None) is not None and closed.value.rcvd.code == 4409


def test_the_remote_on_the_other_server_moving_to_the_reveal_reveals(quiz_cluster) -> None:
    """The phone remote (a presenter socket that sends only moves) on server B steps from the question
    to its reveal: the question closes in Redis, so the speaker view on server A is told it is
    revealed and a follower on A that goes back to the question cannot answer. (Runs before the test
    that kills server B.)"""
    _, [(_, a), (_, b)] = quiz_cluster
    room = new_room(a, DECK)

    async def talk() -> None:
        speaker, _ = await rejoin(a, room["code"], room["presenter_secret"])
        await speaker.send(json.dumps({"type": "go", "slide": 1, "step": 6, "paused": False}))
        one = await follower(a, room["code"], "one" * 6)
        await next_of(one, "state", lambda m: m["step"] == 6)
        await one.send(json.dumps({"type": "answer", "slide": 1, "step": 6, "pick": [4]}))
        await next_of(one, "yours")
        remote, _ = await rejoin(b, room["code"], room["presenter_secret"])
        await remote.send(json.dumps({"type": "go", "slide": 1, "step": 7, "paused": False}))
        tally = await next_of(speaker, "tally", lambda m: m["revealed"])
        assert (tally["slide"], tally["step"], tally["answered"], tally["counts"]) == (1, 6, 1, {"4": 1})
        # the follower has seen the room leave the question (a step-6 state queued from its join, a
        # duplicate of the first, must not pass for the room's coming back)
        await next_of(one, "state", lambda m: m["step"] == 7)
        await remote.send(json.dumps({"type": "go", "slide": 1, "step": 6, "paused": False}))
        await next_of(one, "state", lambda m: m["step"] == 6)
        await answer_refused_after_reveal(one)
        for ws in (speaker, remote):
            await ws.close()

    run(talk())


def test_answers_across_servers_survive_a_dead_server_and_a_redis_restart(quiz_cluster) -> None:
    redis, [(_, a), (proc_b, b)] = quiz_cluster
    room = new_room(a, DECK)

    async def talk() -> None:
        presenter, _ = await rejoin(a, room["code"], room["presenter_secret"])
        await presenter.send(json.dumps({"type": "go", "slide": 1, "step": 6, "paused": False}))
        one, two = await follower(a, room["code"], "one" * 6), await follower(b, room["code"], "two" * 6)
        for ws, pick in ((one, 1), (two, 2)):
            await next_of(ws, "state", lambda m: m["step"] == 6)
            await ws.send(json.dumps({"type": "answer", "slide": 1, "step": 6, "pick": [pick]}))
            assert (await next_of(ws, "yours"))["pick"] == [pick]
        tally = await next_of(presenter, "tally", lambda m: m["answered"] == 2)  # counted across servers
        assert tally["counts"] == {"1": 1, "2": 1}
        proc_b.kill()  # SIGKILL mid-question
        proc_b.wait()
        two = await follower(a, room["code"], "two" * 6)  # reconnects to the other server
        assert (await next_of(two, "yours"))["pick"] == [2]
        redis.kill()
        with contextlib.suppress(Exception):
            await presenter.close()
        redis.start()
        presenter, tally = await tally_once_redis_is_back(a, room)  # the step asks: its tally as Redis kept it
        assert tally["answered"] == 2 and tally["counts"] == {"1": 1, "2": 1}
        two, _ = await rejoin(a, room["code"])
        await presenter.send(json.dumps({"type": "reveal", "slide": 1, "step": 6}))
        assert (await next_of(presenter, "tally", lambda m: m["revealed"]))["counts"] == {"1": 1, "2": 1}
        late = await follower(a, room["code"], "late" * 5)
        await next_of(late, "state")
        await answer_refused_after_reveal(late)
        for ws in (presenter, two):
            await ws.close()

    run(talk())
