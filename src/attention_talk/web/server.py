"""How uvicorn serves the app: the options ``attention-talk serve`` passes (``uvicorn_options``) and
the HTTP/1.1 protocol (``Protocol``), which bounds what a client may hold:

* the request line and headers: at most ATTENTION_TALK_MAX_HEADER_BYTES (h11's
  ``max_incomplete_event_size``; httptools has no such limit, so h11 is the parser), else 431 and
  the connection closes; and they must arrive within ATTENTION_TALK_HEADER_TIMEOUT seconds, else
  408 and the connection closes (uvicorn has no such timer: a slow-header client held its
  connection forever);
* connections: at most ATTENTION_TALK_LIMIT_CONCURRENCY per worker (uvicorn answers 503 beyond);
* the body: ATTENTION_TALK_BODY_TIMEOUT, in the app (``web/limits.py``).

A reverse proxy in front adds TLS and rate limits (README, "Running it on the internet").
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import h11
import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

from attention_talk.web.limits import head_too_large
from attention_talk.web.settings import Settings

PROTOCOL = "attention_talk.web.server:Protocol"


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` that come from the settings (not host, port, workers)."""
    return {
        "http": PROTOCOL,
        # Room sockets (/ws/rooms/…): the websockets library's sans-I/O protocol; a frame over 64 KiB is
        # refused by it (1009) before the app sees it, the app refuses any message over 1 kB.
        "ws": "websockets-sansio",
        "ws_max_size": 65_536,
        "ws_per_message_deflate": False,  # a state message is ~100 bytes: zlib per socket costs memory, not bytes
        "h11_max_incomplete_event_size": settings.max_header_bytes,
        "limit_concurrency": settings.limit_concurrency,
        "log_level": settings.log_level,
        "proxy_headers": True,
        "access_log": settings.access_log,
        "timeout_graceful_shutdown": settings.shutdown_timeout,
        # A worker builds every deck's frames (and may load the model) as it starts: on a busy machine
        # it can miss uvicorn's default 5 s health ping and be restarted in a loop. A hung worker is
        # still replaced, after 30 s.
        "timeout_worker_healthcheck": 30,
    }


@cache
def header_timeout() -> float:
    """ATTENTION_TALK_HEADER_TIMEOUT, read once per worker (uvicorn builds the protocol from its own
    Config, which carries no setting of ours; ``serve`` reads the same environment)."""
    return Settings.from_env().header_timeout


def raw_response(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 response with a JSON error body, closing the connection."""
    body = orjson.dumps({"message": message, "detail": message})
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


class Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head and a 431 for a head too large."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_head = self.config.h11_max_incomplete_event_size or h11.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.head_timeout = header_timeout()
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            self._cancel_head_timer()  # the head is in (or the connection is over)
        elif self.head_timer is None:
            self._arm_head_timer()  # the first bytes of the next request on a kept-alive connection

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._cancel_head_timer()
        if self.conn.their_state is h11.ERROR and len(self.conn.trailing_data[0]) > self.max_head:
            self.logger.warning("Request head larger than %d bytes.", self.max_head)
            self.transport.write(raw_response(431, "Request Header Fields Too Large", head_too_large(self.max_head)))
            self.transport.close()
            return
        super().send_400_response(msg)

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self.head_timer = self.loop.call_later(self.head_timeout, self._head_too_slow)

    def _cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return
        if self.conn.trailing_data[0]:  # part of a head arrived: say why before closing
            self.transport.write(raw_response(408, "Request Timeout", (
                f"headers: not received in full within {self.head_timeout:g} s")))
        self.transport.close()
