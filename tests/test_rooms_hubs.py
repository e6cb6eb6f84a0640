"""Both room hubs, the in-process one and the Redis one (a real ``redis-server`` on a free port),
through the ``RoomHub`` interface with stand-in sockets: hostile codes name no room and build no
key; a room nobody claims is dropped after the claim timeout and frees its place under
``ATTENTION_TALK_MAX_ROOMS`` (with Redis too, across workers); a presenter ends a room and every
socket of it, on every worker, is closed with 4410; a Redis emptied under open connections gets its
rooms written back by the workers that hold them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time

import pytest
import redis as sync_redis

from attention_talk.rooms import HubFull, HubUnavailable, InProcessHub
from attention_talk.rooms.codes import normalise_code
from attention_talk.rooms.hub import ENDED
from attention_talk.rooms.redis_hub import EPOCH, PREFIX, ROOMS, RedisHub
from fresh_loop import run
from hostile_codes import forgiven, hostile
from redis_server import REDIS, RedisServer

DECK = "presenting-demo"


class Socket:
    """A stand-in for a room socket (``hub.Subscriber``): what it was sent, how it was closed."""

    def __init__(self, role: str = "follower") -> None:
        self.role, self.states, self.closed = role, [], None

    def deliver(self, message: str) -> None:
        self.states.append(json.loads(message))

    def drop(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


async def until(condition, within: float = 10.0) -> None:
    """Wait for ``condition()`` to hold (a generous ceiling, not a timing)."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.02)


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    if REDIS is None:  # .ci/run installs it; as with the real model, a missing server is a failure, never a skip
        pytest.fail("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(tmp_path_factory.mktemp("redis"), persistent=False)
    server.start()
    yield server
    server.kill()


@pytest.fixture
def redis_url(redis_server):
    with contextlib.closing(sync_redis.Redis.from_url(redis_server.url)) as r:
        r.flushall()  # each test meets an empty Redis
    return redis_server.url


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["in-process", "redis"])
def hubs(request):
    """A factory of started hubs of one kind (several of the Redis kind share one Redis: workers),
    and a way to let time pass: the in-process hub's clock, or real seconds for Redis's TTLs."""
    clock = Clock()
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None

    async def make(max_rooms: int = 1000, claim_timeout: float = 120, idle_timeout: float = 3600):
        hub = (RedisHub(url, idle_timeout, claim_timeout, max_rooms) if url
               else InProcessHub(idle_timeout, max_rooms, clock=clock, claim_timeout=claim_timeout))
        await hub.start()
        return hub

    async def wait_past(seconds: float, gone) -> None:
        """Let ``seconds`` pass, until the coroutine ``gone()`` says the room has gone."""
        clock.now += seconds
        deadline = time.monotonic() + seconds + 10
        while not await gone():
            assert time.monotonic() < deadline, "the room never expired"
            await asyncio.sleep(0.05)

    make.kind, make.wait_past = request.param, wait_past
    return make


def test_codes_are_normalised_strictly_and_forgivingly() -> None:
    code = "7KQ2MX9D4"
    for kind, text in hostile(code):
        assert normalise_code(text) is None, kind
    for kind, text in forgiven(code):
        assert normalise_code(text) == code, kind
    assert normalise_code("7kq-2mx-9d4") == normalise_code("7KQ 2MX 9D4") == code
    assert normalise_code("OIL-0i1-234") == "011011234"  # O, I and L read as 0, 1 and 1
    assert normalise_code("7" * 1_000_000) is None


def test_hostile_codes_name_no_room_and_build_no_key(hubs) -> None:
    async def scenario() -> None:
        hub = await hubs()
        room = await hub.create(DECK)
        presenter = Socket("presenter")
        assert await hub.join(room.code, presenter, await hub.find(room.code))
        assert await hub.go(room.code, 2, 1, False)
        for kind, text in hostile(room.code):
            assert await hub.find(text) is None, kind
            assert await hub.go(text, 3, 1, False) is False, kind
            assert await hub.end(text) is False, kind
        for kind, text in forgiven(room.code):
            assert await hub.find(text) is None, kind  # a hub takes the stored form only…
            assert (await hub.find(normalise_code(text))).state.slide == 2, kind  # …the entry points normalise
        info = await hub.find(room.code)
        assert (info.state.slide, info.state.step, info.state.seq, presenter.closed) == (2, 1, 1, None)
        if hubs.kind == "redis":
            keys = set(await hub.redis.keys("*"))
            assert keys <= {PREFIX + room.code, PREFIX + room.code + ":followers", ROOMS, EPOCH}
        await hub.stop()

    run(scenario())


def test_a_room_nobody_claims_is_dropped_and_frees_its_place(hubs) -> None:
    async def scenario() -> None:
        hub = await hubs(max_rooms=2, claim_timeout=1)
        claimed, unclaimed = await hub.create(DECK), await hub.create(DECK)
        presenter, follower = Socket("presenter"), Socket()
        assert await hub.join(claimed.code, presenter, await hub.find(claimed.code))
        await hub.leave(claimed.code, presenter)
        assert await hub.join(unclaimed.code, follower, await hub.find(unclaimed.code))  # a follower claims nothing
        with pytest.raises(HubFull, match="ATTENTION_TALK_MAX_ROOMS"):
            await hub.create(DECK)
        if hubs.kind == "redis":
            assert await hub.redis.ttl(PREFIX + unclaimed.code) <= 1 < await hub.redis.ttl(PREFIX + claimed.code)

        async def unclaimed_gone() -> bool:
            return await hub.find(unclaimed.code) is None
        await hubs.wait_past(1.5, unclaimed_gone)
        third = await hub.create(DECK)  # the unclaimed room's place is free again
        assert await hub.find(third.code) is not None
        assert (await hub.find(claimed.code)).deck == DECK  # claimed: the idle timeout (an hour) holds
        with pytest.raises(HubFull):
            await hub.create(DECK)
        if hubs.kind == "in-process":
            assert follower.closed == (4404, f"unknown room {unclaimed.code} (no presenter joined it)")
        await hub.stop()

    run(scenario())


def test_with_redis_the_cap_holds_across_workers_and_ending_frees_a_place(redis_url) -> None:
    async def scenario() -> None:
        a, b = RedisHub(redis_url, 3600, 120, 3), RedisHub(redis_url, 3600, 120, 3)
        for hub in (a, b):
            await hub.start()
        rooms = [await a.create(DECK), await b.create(DECK), await a.create(DECK)]
        for hub in (a, b):
            with pytest.raises(HubFull):
                await hub.create(DECK)
        assert await a.redis.zcard(ROOMS) == 3
        assert await b.end(rooms[0].code)
        assert await a.redis.zcard(ROOMS) == 2
        await b.create(DECK)
        with pytest.raises(HubFull):
            await a.create(DECK)
        for hub in (a, b):
            await hub.stop()

    run(scenario())


def test_a_presenter_ends_the_room_and_every_socket_of_it_closes(hubs) -> None:
    async def scenario() -> None:
        a = await hubs()
        b = await hubs() if hubs.kind == "redis" else a  # with Redis, a follower on another worker
        room = await a.create(DECK)
        presenter, here, there = Socket("presenter"), Socket(), Socket()
        other = await a.create(DECK)
        bystander = Socket()
        assert await a.join(room.code, presenter, await a.find(room.code))
        assert await a.join(room.code, here, await a.find(room.code))
        assert await b.join(room.code, there, await b.find(room.code))
        assert await a.join(other.code, bystander, await a.find(other.code))
        assert await a.end(room.code)
        ended = (ENDED, "room ended by the presenter")
        assert presenter.closed == here.closed == ended
        await until(lambda: there.closed is not None)
        assert there.closed == ended
        assert await a.find(room.code) is None and await b.find(room.code) is None
        assert await a.go(room.code, 2, 1, False) is False and await a.end(room.code) is False
        assert bystander.closed is None and await a.find(other.code) is not None  # other rooms untouched
        assert room.code not in a.local and room.code not in b.local
        if hubs.kind == "redis":
            assert await a.redis.exists(PREFIX + room.code, PREFIX + room.code + ":followers") == 0
            assert await a.redis.zscore(ROOMS, room.code) is None
            await b.stop()
        await a.stop()

    run(scenario())


def test_a_redis_emptied_under_open_sockets_gets_its_rooms_written_back(redis_url) -> None:
    """A failover to an empty replica, or FLUSHALL: the connections stay, the rooms vanish. The
    worker holding a room's sockets writes it back; another worker answers "try again" meanwhile."""

    async def scenario() -> None:
        a, c = RedisHub(redis_url, 3600), RedisHub(redis_url, 3600)
        for hub in (a, c):
            await hub.start()
        room = await a.create(DECK)
        presenter, follower = Socket("presenter"), Socket()
        assert await a.join(room.code, presenter, await a.find(room.code))
        assert await a.join(room.code, follower, await a.find(room.code))
        assert await a.go(room.code, 2, 1, "black")
        await a.redis.flushall()
        try:
            seen = await c.find(room.code)  # unless a's heartbeat got there first…
            assert seen is not None and seen.state.slide == 2
        except HubUnavailable as exc:  # …a worker that never held the room says "try again", not "no room"
            assert "written back" in str(exc)
        assert await a.go(room.code, 3, 1, False)  # the presenter's next move finds the room back
        await until(lambda: follower.states and follower.states[-1]["slide"] == 3)
        back = await c.find(room.code)
        assert (back.deck, back.state.slide, back.state.step, back.claimed) == (DECK, 3, 1, True)
        assert back.digest == (await a.find(room.code)).digest
        assert 3000 < await a.redis.ttl(PREFIX + room.code) <= 3600
        assert await a.redis.zscore(ROOMS, room.code) is not None
        assert presenter.closed is None and follower.closed is None  # nobody was disconnected
        for hub in (a, c):
            await hub.stop()

    run(scenario())
