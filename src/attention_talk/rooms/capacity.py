"""What room sockets and room starts may take of one worker, each bound counted on this worker:

* ``SocketCounts``: room sockets open in all (ATTENTION_TALK_MAX_SOCKETS) and per client address
  (ATTENTION_TALK_MAX_CLIENT_SOCKETS), checked at the handshake; followers per room
  (ATTENTION_TALK_MAX_ROOM_FOLLOWERS), checked after the hello, so a presenter always gets in;
* ``KeyedRate``: a token bucket per client address (room starts: ATTENTION_TALK_ROOM_STARTS_PER_MINUTE).

HTTP requests have their own bound (ATTENTION_TALK_LIMIT_CONCURRENCY, web/server.py): sockets never
take HTTP's capacity, and HTTP never takes theirs. A client address is its IP; an IPv6 address
counts as its /64, the share of one host or home network, which a client can change at will.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from attention_talk.rooms.connection import RateLimit


def client_key(host: str | None) -> str:
    """The address a bound counts: the IP (IPv4-mapped IPv6 as IPv4), an IPv6 one as its /64."""
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host  # not an IP (a test client's name)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass(frozen=True, slots=True)
class Full:
    """Why a socket is refused at the handshake: the HTTP status, a message naming the setting,
    and the seconds after which to try again."""

    status: int
    message: str
    retry_after: int


class SocketCounts:
    """Room sockets on this worker: in all, per client address, and followers per room."""

    def __init__(self, per_worker: int, per_client: int, per_room: int) -> None:
        self.per_worker, self.per_client, self.per_room = per_worker, per_client, per_room
        self.open = 0
        self.by_client: Counter[str] = Counter()
        self.followers: Counter[str] = Counter()

    def admit(self, client: str) -> Full | None:
        """Count one more socket from ``client``, or say why not (nothing is counted then)."""
        if self.open >= self.per_worker:
            return Full(503, f"busy: {self.per_worker} room sockets are open on this server "
                             "(ATTENTION_TALK_MAX_SOCKETS); try again in a few seconds", 5)
        if self.by_client[client] >= self.per_client:
            return Full(429, f"too many room sockets from your address: at most {self.per_client} "
                             "(ATTENTION_TALK_MAX_CLIENT_SOCKETS); close some first", 10)
        self.open += 1
        self.by_client[client] += 1
        return None

    def release(self, client: str) -> None:
        self.open -= 1
        self.by_client[client] -= 1
        if self.by_client[client] <= 0:
            del self.by_client[client]

    def seat(self, code: str) -> bool:
        """Seat one more follower in room ``code``; False when its followers here are at the bound."""
        if self.followers[code] >= self.per_room:
            return False
        self.followers[code] += 1
        return True

    def unseat(self, code: str) -> None:
        self.followers[code] -= 1
        if self.followers[code] <= 0:
            del self.followers[code]

    def room_full(self, code: str) -> str:
        return (f"room full: {self.per_room} followers on this server (ATTENTION_TALK_MAX_ROOM_FOLLOWERS); "
                "try again later")


class KeyedRate:
    """A token bucket per key: ``per_minute`` a minute on average, bursts of as many. At most
    ``max_keys`` buckets are kept, the least recently used forgotten first (a forgotten key starts
    again with a full bucket, as a new one does)."""

    def __init__(self, per_minute: float, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst = per_minute / 60, max(1.0, per_minute)
        self.max_keys, self.clock = max_keys, clock
        self.buckets: OrderedDict[str, RateLimit] = OrderedDict()

    def wait(self, key: str) -> float:
        """0 when ``key`` may go now (its token is spent), else the seconds until it may."""
        bucket = self.buckets.pop(key, None) or RateLimit(self.rate, self.burst, self.clock)
        self.buckets[key] = bucket
        if len(self.buckets) > self.max_keys:
            self.buckets.popitem(last=False)
        return 0.0 if bucket.allow() else bucket.wait()


def retry_after(seconds: float) -> int:
    """Whole seconds for a Retry-After header, at least 1."""
    return max(1, math.ceil(seconds))
