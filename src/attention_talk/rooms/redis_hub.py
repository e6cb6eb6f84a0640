"""The Redis hub (``ATTENTION_TALK_REDIS_URL``): any number of workers and hosts serve one room.

Per room, through ``redis.asyncio``:
* ``attention-talk:room:{code}`` — a hash: deck, secret digest, slide, step, paused, seq; its TTL is
  the idle timeout, renewed by every ``go`` and, while sockets are open, by each worker's heartbeat;
* ``attention-talk:room:{code}:followers`` — a hash: worker → "count expiry" (a dead worker's
  count lapses after ``COUNT_TTL`` seconds);
* a pub/sub channel of the same name as the room key: every ``go`` (published by the same Lua
  script that bumps ``seq``, so the order is Redis's) and "count again" notices.

When Redis goes away, every local socket is closed with 1013 ("try again later"); clients retry
with backoff and get the state from Redis when it is back. Nothing lives only in a worker, so a
restarted or other worker serves a room as well as the one that created it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import time

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from attention_talk.rooms.codes import digest, new_code, new_secret
from attention_talk.rooms.hub import UNAVAILABLE, HubUnavailable, NewRoom, RoomHub, RoomInfo
from attention_talk.rooms.messages import State

log = logging.getLogger(__name__)
PREFIX = "attention-talk:room:"
HEARTBEAT = 5.0  # seconds between a worker's renewals of its rooms' TTLs and follower counts
COUNT_TTL = 3 * HEARTBEAT

CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'deck', ARGV[1], 'digest', ARGV[2], 'slide', 1, 'step', 1, 'paused', 'false', 'seq', 0)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""
GO = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'slide', ARGV[1], 'step', ARGV[2], 'paused', ARGV[3])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', KEYS[1], cjson.encode({t = 'go', seq = seq, slide = tonumber(ARGV[1]),
  step = tonumber(ARGV[2]), paused = ARGV[3]}))
return seq
"""


def _paused(text: str) -> bool | str:
    return False if text == "false" else text


class RedisHub(RoomHub):
    def __init__(self, url: str, idle_timeout: float) -> None:
        super().__init__(idle_timeout)
        self.ttl = max(1, math.ceil(idle_timeout))  # EXPIRE takes whole seconds; 0 would delete at once
        self.url = url
        self.worker = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        # one retry: a pooled connection from before a Redis restart fails once, then a fresh one is made
        self.redis = aioredis.from_url(url, decode_responses=True, socket_connect_timeout=2, socket_timeout=5,
                                       retry=Retry(NoBackoff(), 1), health_check_interval=10)
        self.pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        self.subscribed = asyncio.Event()
        self.tasks: list[asyncio.Task] = []
        self.create_script = self.redis.register_script(CREATE)
        self.go_script = self.redis.register_script(GO)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._listen()), loop.create_task(self._heartbeat())]

    async def stop(self) -> None:
        for code in list(self.local):
            with contextlib.suppress(RedisError, OSError):
                await self.redis.hdel(PREFIX + code + ":followers", self.worker)
        await super().stop()
        for task in self.tasks:
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
            if await self._call(self.create_script(keys=[PREFIX + code],
                                                   args=[deck, digest(secret), self.ttl])):
                return NewRoom(code, secret, deck)

    async def find(self, code: str) -> RoomInfo | None:
        h = await self._call(self.redis.hgetall(PREFIX + code))
        if not h:
            return None
        state = State(h["deck"], int(h["slide"]), int(h["step"]), _paused(h["paused"]), int(h["seq"]))
        return RoomInfo(h["deck"], h["digest"], state)

    async def go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        seq = await self._call(self.go_script(keys=[PREFIX + code],
                                              args=[slide, step, str(paused).lower(), self.ttl]))
        return seq != -1

    async def _subscribe(self, code: str) -> None:
        await self._call(self.pubsub.subscribe(PREFIX + code))
        self.subscribed.set()

    async def _unsubscribe(self, code: str) -> None:
        await self._call(self.pubsub.unsubscribe(PREFIX + code))

    async def _count(self, code: str, here: int, notify: bool) -> int:
        key = PREFIX + code + ":followers"
        now = time.time()
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, self.worker, f"{here} {now + COUNT_TTL}")
            pipe.expire(key, int(COUNT_TTL * 2))
            pipe.hgetall(key)
            if notify:
                pipe.publish(PREFIX + code, b'{"t":"count"}')
            counts = (await self._call(pipe.execute()))[2]
        total = 0
        for value in counts.values():
            n, expiry = value.split()
            total += int(n) if float(expiry) > now else 0
        return total

    def _on_message(self, message: dict) -> None:
        code = message["channel"].removeprefix(PREFIX)
        data = orjson.loads(message["data"])
        room = self.local.get(code)
        if room is None:
            return
        if data["t"] == "count":
            self.recount(code)
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
                self._on_message(message)

    async def _lost(self, exc: BaseException) -> None:
        """Redis went away: close every local socket (clients retry) and start a fresh pub/sub."""
        log.warning("rooms: Redis unavailable (%s); closing %d room(s)", type(exc).__name__, len(self.local))
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
                        pipe.expire(PREFIX + code, self.ttl)
                        pipe.hset(PREFIX + code + ":followers", self.worker,
                                  f"{room.followers_here} {time.time() + COUNT_TTL}")
                        pipe.expire(PREFIX + code + ":followers", int(COUNT_TTL * 2))
                    await pipe.execute()
            except (RedisError, OSError) as exc:
                log.warning("rooms: heartbeat failed (%s)", type(exc).__name__)
