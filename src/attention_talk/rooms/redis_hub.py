"""The Redis hub (``ATTENTION_TALK_REDIS_URL``): any number of workers and hosts serve one room.

Per room, through ``redis.asyncio`` (a key is only ever built from a code that ``codes.is_code``
accepts, so no code names another key):
* ``attention-talk:room:{code}`` — a hash: deck, secret digest, slide, step, paused, seq, claimed;
  its TTL is the claim timeout until the presenter first joins (the claim script), then the idle
  timeout, renewed by every ``go`` and, while sockets are open, by each worker's heartbeat;
* ``attention-talk:room:{code}:followers`` — a hash: worker → "count expiry" (a dead worker's
  count lapses after ``COUNT_TTL`` seconds);
* a pub/sub channel of the same name as the room key: every ``go`` (published by the same Lua
  script that bumps ``seq``, so the order is Redis's), "count again" and "ended" notices.

Shared by all rooms:
* ``attention-talk:rooms`` — a sorted set of room codes scored by when each room's key expires
  (Redis's clock). Every script that sets a room's TTL sets its score with it; the create script
  trims the scores that have passed and refuses beyond ``max_rooms``, so the count cannot drift
  when keys expire and the cap holds across every worker;
* ``attention-talk:epoch`` — a random token, set when a hub first meets this Redis. A Redis that
  comes back empty (no persistence, a failover to an empty replica) has none: that is how a worker
  tells "the room was ended or expired" from "Redis lost it".

When Redis goes away, every local socket is closed with 1013 ("try again later"); clients retry
with backoff and get the state from Redis when it is back. The worker remembers the rooms it held
sockets for; when Redis answers again and its epoch has changed (it lost its data), the worker
writes those rooms back (only where absent: the first worker's copy wins), so the talk goes on.
For a few seconds after that, a room no worker has written back yet answers 1013, not 4404, so its
clients retry instead of giving up. A restarted or other worker serves a room as well as the one
that created it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import socket
import time
from dataclasses import dataclass

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from attention_talk.rooms.codes import digest, is_code, new_code, new_secret
from attention_talk.rooms.hub import ENDED, UNAVAILABLE, HubFull, HubUnavailable, NewRoom, RoomHub, RoomInfo
from attention_talk.rooms.messages import State
from attention_talk.rooms.redis_answers import RedisAnswers

log = logging.getLogger(__name__)
PREFIX = "attention-talk:room:"
ROOMS = "attention-talk:rooms"  # sorted set: code → when its room's key expires (Redis TIME, seconds)
EPOCH = "attention-talk:epoch"
RESTORING = "attention-talk:restoring"  # set for RESTORE_GRACE seconds once Redis is found emptied
HEARTBEAT = 5.0  # seconds between a worker's renewals of its rooms' TTLs and follower counts
COUNT_TTL = 3 * HEARTBEAT
RESTORE_GRACE = 10  # seconds after Redis is found emptied during which an unknown room answers 1013
RETRY_EVERY = 0.25  # seconds between a worker's tries to reach Redis again, while it has rooms to write back

# Every script that sets a room's TTL sets its score in ROOMS to the same moment (_EXPIRE_AT).
_NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) + tonumber(t[2]) / 1e6\n"
_EXPIRE_AT = """
local function expire_at(key, code, ttl)
  redis.call('EXPIRE', key, ttl)
  redis.call('ZADD', KEYS[2], now + tonumber(ttl), code)
end
"""
CREATE = _NOW + _EXPIRE_AT + """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'deck', ARGV[1], 'digest', ARGV[2], 'slide', 1, 'step', 1, 'paused', 'false', 'seq', 0,
  'claimed', 0)
expire_at(KEYS[1], ARGV[4], ARGV[3])
return 1
"""
CLAIM = _NOW + _EXPIRE_AT + """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HGET', KEYS[1], 'claimed') ~= '1' then
  redis.call('HSET', KEYS[1], 'claimed', 1)
  expire_at(KEYS[1], ARGV[1], ARGV[2])
end
return 1
"""
GO = _NOW + _EXPIRE_AT + """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'slide', ARGV[1], 'step', ARGV[2], 'paused', ARGV[3])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
expire_at(KEYS[1], ARGV[5], ARGV[4])
redis.call('PUBLISH', KEYS[1], cjson.encode({t = 'go', seq = seq, slide = tonumber(ARGV[1]),
  step = tonumber(ARGV[2]), paused = ARGV[3]}))
return seq
"""
END = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', KEYS[1], '{"t":"end"}')
return 1
"""
# A worker's heartbeat for one room it holds sockets of: the room lives on only once claimed.
HEARTBEAT_ROOM = _NOW + _EXPIRE_AT + """
if redis.call('HGET', KEYS[1], 'claimed') == '1' then expire_at(KEYS[1], ARGV[1], ARGV[2]) end
redis.call('HSET', KEYS[3], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[5])
return 1
"""
# Write a remembered room back, only where Redis has none (the first worker's copy wins).
RESTORE = _NOW + _EXPIRE_AT + """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'deck', ARGV[3], 'digest', ARGV[4], 'slide', ARGV[5], 'step', ARGV[6],
  'paused', ARGV[7], 'seq', ARGV[8], 'claimed', ARGV[9])
expire_at(KEYS[1], ARGV[1], ARGV[2])
return 1
"""
# This Redis's epoch token; a missing one means Redis lost its data: a new token, and (when
# ARGV[2] is 1, i.e. not a hub's first look at a fresh Redis) RESTORING for the grace period.
MEET = """
local token = redis.call('GET', KEYS[1])
if not token then
  token = ARGV[1]
  redis.call('SET', KEYS[1], token)
  if ARGV[2] == '1' then redis.call('SET', KEYS[2], 1, 'EX', ARGV[3]) end
end
return {token, redis.call('EXISTS', KEYS[2])}
"""


@dataclass(frozen=True, slots=True)
class _Epoch:
    token: str
    restoring: bool


def _paused(text: str) -> bool | str:
    return False if text == "false" else text


def _room_info(h: dict[str, str]) -> RoomInfo | None:
    """A room's hash as a RoomInfo; None for one that is not a whole room (never a KeyError)."""
    try:
        state = State(h["deck"], int(h["slide"]), int(h["step"]), _paused(h["paused"]), int(h["seq"]))
        return RoomInfo(h["deck"], h["digest"], state, h.get("claimed", "1") != "0")
    except (KeyError, ValueError):
        return None


def _key(code: str) -> str:
    """The room's key: built only from a code in its stored form."""
    if not is_code(code):
        raise ValueError("not a room code")
    return PREFIX + code


ROOM_FIELDS = ("deck", "digest", "slide", "step", "paused", "seq", "claimed")  # read by name: answers share the hash


class RedisHub(RedisAnswers, RoomHub):
    _key = staticmethod(_key)
    def __init__(self, url: str, idle_timeout: float, claim_timeout: float = 120.0, max_rooms: int = 1000) -> None:
        super().__init__(idle_timeout, claim_timeout)
        self.ttl = max(1, math.ceil(idle_timeout))  # EXPIRE takes whole seconds; 0 would delete at once
        self.claim_ttl = max(1, math.ceil(claim_timeout))
        self.max_rooms = max_rooms
        self.url = url
        self.epoch: str | None = None  # this Redis's token as this worker last met it
        self.remembered: dict[str, RoomInfo] = {}  # rooms this worker held sockets of when Redis went away
        self.writing_back: asyncio.Task | None = None
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        # one retry: a pooled connection from before a Redis restart fails once, then a fresh one is made
        self.redis = aioredis.from_url(url, decode_responses=True, socket_connect_timeout=2, socket_timeout=5,
                                       retry=Retry(NoBackoff(), 1), health_check_interval=10)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self.subscribed = asyncio.Event()
        self.tasks: list[asyncio.Task] = []
        self.create_script = self.redis.register_script(CREATE)
        self.claim_script = self.redis.register_script(CLAIM)
        self.go_script = self.redis.register_script(GO)
        self.end_script = self.redis.register_script(END)
        self.heartbeat_script = self.redis.register_script(HEARTBEAT_ROOM)
        self.restore_script = self.redis.register_script(RESTORE)
        self.meet_script = self.redis.register_script(MEET)

    async def start(self) -> None:
        with contextlib.suppress(HubUnavailable):  # Redis not there yet: met on the first write-back
            self.epoch = (await self._meet(after_loss=False)).token
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._listen()), loop.create_task(self._heartbeat())]

    async def stop(self) -> None:
        for code in list(self.local):
            with contextlib.suppress(RedisError, OSError):
                await self.redis.hdel(PREFIX + code + ":followers", self.worker)
        await super().stop()
        for task in [*self.tasks, self.writing_back]:
            if task:
                task.cancel()
        with contextlib.suppress(RedisError, OSError):
            await self.pubsub.aclose()
            await self.redis.aclose()

    async def _call(self, coro):
        try:
            return await coro
        except (RedisError, OSError) as exc:
            raise HubUnavailable(f"Redis unavailable: {type(exc).__name__}") from None

    async def create(self, deck: str) -> NewRoom:
        secret = new_secret()
        while True:
            code = new_code()
            made = await self._call(self.create_script(keys=[_key(code), ROOMS],
                                                       args=[deck, digest(secret), self.claim_ttl, code,
                                                             self.max_rooms]))
            if made == -1:
                raise HubFull(f"{self.max_rooms} rooms are open (ATTENTION_TALK_MAX_ROOMS); try again later")
            if made:
                return NewRoom(code, secret, deck)

    async def _hash(self, code: str) -> dict[str, str]:
        values = await self._call(self.redis.hmget(_key(code), ROOM_FIELDS))
        return {k: v for k, v in zip(ROOM_FIELDS, values, strict=True) if v is not None}

    async def _find(self, code: str) -> RoomInfo | None:
        info = _room_info(await self._hash(code))
        if info is None and await self._recover(code):
            info = _room_info(await self._hash(code))
        if info is None and (await self._meet(after_loss=True)).restoring:
            raise HubUnavailable("Redis lost its rooms: they are being written back")
        return info

    async def _go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        def go():
            return self._call(self.go_script(keys=[_key(code), ROOMS],
                                             args=[slide, step, str(paused).lower(), self.ttl, code]))
        seq = await go()
        if seq == -1 and await self._recover(code):
            seq = await go()
        return seq != -1

    async def _end(self, code: str) -> bool:
        return bool(await self._call(self.end_script(keys=[_key(code), ROOMS, _key(code) + ":followers"],
                                                     args=[code])))

    async def _claim(self, code: str) -> bool:
        def claim():
            return self._call(self.claim_script(keys=[_key(code), ROOMS], args=[code, self.ttl]))
        return bool(await claim() or (await self._recover(code) and await claim()))

    async def _recover(self, code: str) -> bool:
        """Redis has no room ``code``: when this worker knows it (holds sockets of it, or did when
        Redis went away) and Redis lost its data, write it back. Whether the room is back."""
        return (code in self.local or code in self.remembered) and code in await self.write_back()

    async def _meet(self, after_loss: bool) -> _Epoch:
        """This Redis's epoch (see the module's docstring), made anew when it has none."""
        token, restoring = await self._call(self.meet_script(
            keys=[EPOCH, RESTORING], args=[secrets.token_hex(8), int(after_loss), RESTORE_GRACE]))
        return _Epoch(token, bool(restoring))

    def _known(self) -> dict[str, RoomInfo]:
        """What it takes to write back each room this worker holds sockets of, or did."""
        held = {code: RoomInfo(room.state.deck, room.digest, room.state, room.claimed)
                for code, room in self.local.items()}
        return {**self.remembered, **held}

    def _remember(self) -> None:
        """Keep the rooms this worker holds sockets of (they are about to be closed) for write_back."""
        self.remembered = self._known()
        if self.remembered and (self.writing_back is None or self.writing_back.done()):
            self.writing_back = asyncio.get_running_loop().create_task(self._write_back_when_back())

    async def _write_back_when_back(self) -> None:
        """Try Redis every RETRY_EVERY seconds until it answers, then write back; give up on rooms
        after the idle timeout (they would have expired)."""
        deadline = time.monotonic() + self.idle_timeout
        while self.remembered and time.monotonic() < deadline:
            try:
                await self.write_back()
            except HubUnavailable:
                await asyncio.sleep(RETRY_EVERY)
        self.remembered.clear()

    async def write_back(self) -> set[str]:
        """When Redis lost its data (its epoch changed), write back every room this worker knows,
        where Redis has none; rooms missing from a Redis that kept its data were ended or expired:
        forget them. The codes of the rooms now in Redis again (written here or by another worker)."""
        epoch = await self._meet(after_loss=True)
        lost, back, written = epoch.token != self.epoch, set(), 0
        for code, info in self._known().items():
            if lost:
                written += await self._restore(code, info)
                back.add(code)
            self.remembered.pop(code, None)
        self.epoch = epoch.token  # only once every room is back: a failure half-way tries them all again
        if written:
            log.warning("rooms: Redis came back without its rooms; wrote %d of them back", written)
        return back

    async def _restore(self, code: str, info: RoomInfo) -> int:
        s = info.state
        return await self._call(self.restore_script(keys=[_key(code), ROOMS], args=[
            code, self.ttl if info.claimed else self.claim_ttl, info.deck, info.digest, s.slide, s.step,
            str(s.paused).lower(), s.seq, int(info.claimed)]))

    async def _subscribe(self, code: str) -> None:
        await self._call(self.pubsub.subscribe(_key(code)))
        self.subscribed.set()

    async def _unsubscribe(self, code: str) -> None:
        await self._call(self.pubsub.unsubscribe(_key(code)))

    async def _count(self, code: str, here: int, notify: bool) -> int:
        key = _key(code) + ":followers"
        now = time.time()
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, self.worker, f"{here} {now + COUNT_TTL}")
            pipe.expire(key, int(COUNT_TTL * 2))
            pipe.hgetall(key)
            if notify:
                pipe.publish(_key(code), b'{"t":"count"}')
            counts = (await self._call(pipe.execute()))[2]
        total = 0
        for value in counts.values():
            n, expiry = value.split()
            total += int(n) if float(expiry) > now else 0
        return total

    async def _on_message(self, message: dict) -> None:
        code = message["channel"].removeprefix(PREFIX)
        data = orjson.loads(message["data"])
        room = self.local.get(code)
        if room is None:
            return
        if data["t"] == "count":
            self.recount(code)
        elif data["t"] == "tally":
            self.on_tally_notice(code, data)
        elif data["t"] == "end":
            await self.close_room(code, ENDED, "room ended by the presenter")
        elif data["t"] == "go":
            self.on_state(code, State(room.state.deck, data["slide"], data["step"],
                                      _paused(data["paused"]), data["seq"]))

    async def _listen(self) -> None:
        while True:
            if not self.local:
                self.subscribed.clear()
                await self.subscribed.wait()
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                await self._lost(exc)
                continue
            except RuntimeError:  # not subscribed to anything (yet, or any more)
                await asyncio.sleep(0.05)
                continue
            if message and message["type"] == "message":
                await self._on_message(message)

    async def _lost(self, exc: BaseException) -> None:
        """Redis went away: close every local socket (clients retry) and start a fresh pub/sub."""
        log.warning("rooms: Redis unavailable (%s); closing %d room(s)", type(exc).__name__, len(self.local))
        self._remember()
        self.drop_all(UNAVAILABLE, "rooms unavailable: reconnecting")
        with contextlib.suppress(RedisError, OSError, RuntimeError):
            await self.pubsub.aclose()
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await asyncio.sleep(0.2)

    async def _heartbeat(self) -> None:
        """Keep the TTLs of rooms with open sockets, and this worker's follower counts, alive."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for code, room in self.local.items():
                        await self.heartbeat_script(keys=[_key(code), ROOMS, _key(code) + ":followers"], args=[
                            code, self.ttl, self.worker, f"{room.followers_here} {time.time() + COUNT_TTL}",
                            int(COUNT_TTL * 2)], client=pipe)
                    pipe.get(EPOCH)
                    epoch = (await pipe.execute())[-1]
                if self.local and epoch != self.epoch:  # emptied under open connections (FLUSHALL, a failover)
                    await self.write_back()
            except (RedisError, OSError, HubUnavailable) as exc:
                log.warning("rooms: heartbeat failed (%s)", type(exc).__name__)
