"""Live rooms across processes, on the wire: a real ``redis-server`` (started here on a free port)
and two ``attention-talk serve`` processes sharing it. A presenter on one server, followers on the
other, in lockstep; Redis killed mid-talk and restarted: followers are told to retry, and resync;
a server killed: its followers reconnect to the other and resync; Redis restarted *empty* (no
persistence): the servers write the room back and the talk goes on; the presenter ends the room and
the followers on the other server are closed. Also the refusals that only the real server makes (a
bad Origin at the handshake, a 1 MB frame, hostile codes at every entry point)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from fresh_loop import run
from hostile_codes import refused_everywhere
from redis_server import REDIS, RedisServer, two_servers
from served import ROOT

DECK = "presenting-demo"  # the small demo decks: the servers start in a moment
DEMO_DECKS = ROOT / "tests" / "browser" / "decks"
pytestmark = pytest.mark.skipif(REDIS is None and not os.environ.get("CI"),
                                reason="redis-server is not installed (apt-get install redis-server)")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with two_servers(RedisServer(tmp_path_factory.mktemp("redis")), DEMO_DECKS, DECK) as running:
        yield running


@pytest.fixture(scope="module")
def forgetful_cluster(tmp_path_factory):
    """The same on a Redis without persistence: a restart brings it back empty."""
    with two_servers(RedisServer(tmp_path_factory.mktemp("redis"), persistent=False), DEMO_DECKS, DECK) as running:
        yield running


def ws_url(url: str, code: str) -> str:
    return f"{url.replace('http://', 'ws://')}/ws/rooms/{code}"


def new_room(url: str, deck: str = DECK) -> dict:
    req = urllib.request.Request(f"{url}/api/rooms", data=json.dumps({"deck": deck}).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.status == 201
        return json.load(r)


async def join(url: str, code: str, secret: str | None = None):
    ws = await connect(ws_url(url, code), open_timeout=10)
    hello = ({"type": "hello", "role": "presenter", "secret": secret} if secret
             else {"type": "hello", "role": "follower"})
    await ws.send(json.dumps(hello))
    return ws, json.loads(await asyncio.wait_for(ws.recv(), 10))


async def state_at(ws, slide: int, step: int, paused=False) -> dict:
    """The next state at (slide, step), skipping follower-count updates."""
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if (msg["slide"], msg["step"], msg["paused"]) == (slide, step, paused):
            return msg


async def rejoin(url: str, code: str, secret: str | None = None, within: float = 20):
    """Reconnect as a client does (retrying with backoff) until the room answers with a state."""
    deadline, delay = time.monotonic() + within, 0.1
    while True:
        with contextlib.suppress(OSError, ConnectionClosed, InvalidStatus, TimeoutError):
            ws, answer = await join(url, code, secret)
            if answer["type"] == "state":
                return ws, answer
        assert time.monotonic() < deadline, "the room never came back"
        await asyncio.sleep(delay)
        delay = min(delay * 2, 1.0)


MOVES = [(2, 1, False), (2, 2, False), (3, 1, "black"), (3, 1, False), (4, 1, False)]


def test_followers_on_one_server_follow_a_presenter_on_the_other(cluster) -> None:
    _, [(_, a), (_, b)] = cluster
    room = new_room(a)

    async def talk() -> None:
        presenter, first = await join(a, room["code"], room["presenter_secret"])
        followers = [(await join(b, room["code"]))[0] for _ in range(3)]
        assert first == {"type": "state", "deck": DECK, "slide": 1, "step": 1, "paused": False, "followers": 0}
        while (json.loads(await asyncio.wait_for(presenter.recv(), 10)))["followers"] != 3:
            pass  # the count, summed over both servers, reaches the presenter
        for slide, step, paused in MOVES:
            await presenter.send(json.dumps({"type": "go", "slide": slide, "step": step, "paused": paused}))
            for ws in followers:
                got = await state_at(ws, slide, step, paused)
                assert got["deck"] == DECK and got["followers"] == 3
        for ws in [presenter, *followers]:
            await ws.close()

    run(talk())


def test_redis_killed_mid_talk_then_back_followers_resync(cluster) -> None:
    redis, [(_, a), (_, b)] = cluster
    room = new_room(a)

    async def talk() -> None:
        presenter, _ = await join(a, room["code"], room["presenter_secret"])
        follower, _ = await join(b, room["code"])
        await presenter.send(json.dumps({"type": "go", "slide": 2, "step": 2, "paused": False}))
        await state_at(follower, 2, 2)
        redis.kill()
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(follower.recv(), 10)
        assert closed.value.rcvd.code == 1013 and "reconnecting" in closed.value.rcvd.reason
        refused, answer = await join(b, room["code"])  # while Redis is away: "try again later"
        assert answer == {"type": "error", "message": "rooms unavailable: reconnecting"}
        with pytest.raises(ConnectionClosed) as closed:
            await refused.recv()
        assert closed.value.rcvd.code == 1013
        redis.start()
        follower, resync = await rejoin(b, room["code"])
        assert (resync["slide"], resync["step"]) == (2, 2)  # the state survived in Redis
        presenter, _ = await rejoin(a, room["code"], room["presenter_secret"])
        await presenter.send(json.dumps({"type": "go", "slide": 3, "step": 1, "paused": False}))
        await state_at(follower, 3, 1)
        await presenter.close()
        await follower.close()

    run(talk())


def test_the_real_server_refuses_a_foreign_origin_and_a_huge_frame(cluster) -> None:
    _, [(_, a), _] = cluster
    room = new_room(a)

    async def probe() -> None:
        with pytest.raises(InvalidStatus) as denied:
            await connect(ws_url(a, room["code"]), origin="http://evil.example", open_timeout=10)
        assert denied.value.response.status_code == 403
        ok = await connect(ws_url(a, room["code"]), origin=a, open_timeout=10)
        await ok.close()
        ws, _ = await join(a, room["code"])
        await ws.send("x" * 1_000_000)
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
        assert closed.value.rcvd.code == 1009
        again, state = await join(a, room["code"])  # the room is untouched
        assert state["type"] == "state"
        await again.close()

    run(probe())


def test_the_presenter_ends_the_room_on_one_server_its_followers_on_the_other_close(cluster) -> None:
    _, [(_, a), (_, b)] = cluster
    room = new_room(a)

    async def talk() -> None:
        presenter, _ = await join(a, room["code"], room["presenter_secret"])
        followers = [(await join(url, room["code"]))[0] for url in (a, b, b)]
        await presenter.send('{"type": "end"}')
        for ws in [presenter, *followers]:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (4410, "room ended by the presenter")
        for url in (a, b):
            late, answer = await join(url, room["code"])
            assert answer["message"].startswith(f"unknown room {room['code']}")
            await late.close()

    run(talk())


def test_hostile_codes_are_refused_at_every_entry_point_with_redis(cluster) -> None:
    _, [(_, a), (_, b)] = cluster
    code = new_room(a)["code"]
    refused_everywhere(b, code)


# Last of the cluster's tests: it kills server b.
def test_a_dead_server_s_followers_resync_on_the_other(cluster) -> None:
    _, [(_, a), (proc_b, b)] = cluster
    room = new_room(a)

    async def talk() -> None:
        presenter, _ = await join(a, room["code"], room["presenter_secret"])
        follower, _ = await join(b, room["code"])
        await presenter.send(json.dumps({"type": "go", "slide": 3, "step": 1, "paused": "white"}))
        await state_at(follower, 3, 1, "white")
        proc_b.kill()  # SIGKILL: no goodbye
        proc_b.wait()
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(follower.recv(), 10)
        started = time.monotonic()
        follower, resync = await rejoin(a, room["code"], within=5)
        assert (resync["slide"], resync["step"], resync["paused"]) == (3, 1, "white")
        assert time.monotonic() - started < 5
        await presenter.close()
        await follower.close()

    run(talk())


def test_redis_back_empty_the_servers_write_the_room_back(forgetful_cluster) -> None:
    redis, [(_, a), (_, b)] = forgetful_cluster
    room = new_room(a)

    async def talk() -> None:
        presenter, _ = await join(a, room["code"], room["presenter_secret"])
        followers = [(await join(b, room["code"]))[0] for _ in range(2)]
        await presenter.send(json.dumps({"type": "go", "slide": 2, "step": 2, "paused": False}))
        for ws in followers:
            await state_at(ws, 2, 2)
        redis.kill()
        for ws in [presenter, *followers]:
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await asyncio.wait_for(ws.recv(), 10)
            assert closed.value.rcvd.code == 1013
        redis.start()  # no append-only file: it comes back with no rooms at all
        followers = [(await rejoin(b, room["code"]))[0] for _ in range(2)]
        presenter, resync = await rejoin(a, room["code"], room["presenter_secret"])
        assert (resync["slide"], resync["step"]) == (2, 2)  # the servers knew where the room was
        await presenter.send(json.dumps({"type": "go", "slide": 3, "step": 1, "paused": False}))
        for ws in followers:
            await state_at(ws, 3, 1)
        for ws in [presenter, *followers]:
            await ws.close()

    run(talk())
    with urllib.request.urlopen(f"{b}/join/{room['code']}", timeout=10) as page:
        assert page.status == 200
