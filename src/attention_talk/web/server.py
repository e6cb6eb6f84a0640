"""How uvicorn serves the app: the options ``attention-talk serve`` passes (``uvicorn_options``), the
HTTP/1.1 protocol (``Protocol``) and the WebSocket protocol (``SocketProtocol``), which bound what a
client may hold:

* the request line and headers: at most ATTENTION_TALK_MAX_HEADER_BYTES (h11's
  ``max_incomplete_event_size``; httptools has no such limit, so h11 is the parser), else 431 and
  the connection closes; and they must arrive within ATTENTION_TALK_HEADER_TIMEOUT seconds, else
  408 and the connection closes (uvicorn has no such timer: a slow-header client held its
  connection forever);
* HTTP requests in progress: at most ATTENTION_TALK_LIMIT_CONCURRENCY per worker, else a JSON 503
  with Retry-After (``HttpCapacity``). uvicorn counted every open connection instead, room sockets
  and silent connections too, so 1,000 followers (or 1,000 idle TCP connections, for the header
  timeout) turned every visitor away; room sockets have bounds of their own (rooms/capacity.py);
* the body: ATTENTION_TALK_BODY_TIMEOUT, in the app (``web/limits.py``);
* a room socket's frames: every frame costs a token of its rate limit (ATTENTION_TALK_ROOM_RATE_LIMIT),
  pings and pongs included, which uvicorn answers without the app seeing them.

Nothing a client sends writes an ERROR line: text that is not UTF-8 closes the socket with 1007 and
an INFO line (uvicorn logged an ERROR with a traceback), and a handshake the app refuses with an
HTTP response (a foreign Origin, a full server) is not logged as an unfinished handshake.

A reverse proxy in front adds TLS and rate limits (README, "Running it on the internet").
"""

from __future__ import annotations

import asyncio
import weakref
from functools import cache
from typing import Any

import h11
import orjson
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame

from attention_talk.rooms.connection import RATE_LIMIT_EXTENSION, TOO_MANY, TOO_MANY_MESSAGES, RateLimit
from attention_talk.rooms.messages import error
from attention_talk.web.limits import head_too_large
from attention_talk.web.settings import Settings

PROTOCOL = "attention_talk.web.server:Protocol"
WS_PROTOCOL = "attention_talk.web.server:SocketProtocol"
NOT_UTF8 = 1007


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of ``uvicorn.run`` that come from the settings (not host, port, workers)."""
    return {
        "http": PROTOCOL,
        # Room sockets (/ws/rooms/…): the websockets library's sans-I/O protocol; a frame over 64 KiB is
        # refused by it (1009) before the app sees it, the app refuses any message over 1 kB.
        "ws": WS_PROTOCOL,
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
def worker_settings() -> Settings:
    """The settings, read once per worker (uvicorn builds the protocols from its own Config, which
    carries no setting of ours; ``serve`` reads the same environment)."""
    return Settings.from_env()


def header_timeout() -> float:
    return worker_settings().header_timeout


def raw_response(status: int, reason: str, message: str) -> bytes:
    """A whole HTTP/1.1 response with a JSON error body, closing the connection."""
    body = orjson.dumps({"message": message, "detail": message})
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n").encode() + body


class HttpCapacity:
    """At most ``limit`` HTTP requests in progress on this worker, from the moment the head is in
    until the app has answered; beyond it a JSON 503 with Retry-After. One per uvicorn server (its
    state), shared by every connection."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit
        self.in_progress = 0

    @classmethod
    def of(cls, server_state: ServerState, app: ASGIApp, limit: int) -> HttpCapacity:
        capacity = _CAPACITY.get(server_state)
        if capacity is None:
            capacity = _CAPACITY[server_state] = cls(app, limit)
        return capacity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.in_progress >= self.limit:
            await self.busy(send)
            return
        self.in_progress += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.in_progress -= 1

    async def busy(self, send: Send) -> None:
        message = (f"busy: {self.limit} requests are in progress on this server "
                   "(ATTENTION_TALK_LIMIT_CONCURRENCY); retry in 1 s")
        body = orjson.dumps({"message": message, "detail": message})
        await send({"type": "http.response.start", "status": 503, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"retry-after", b"1"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


_CAPACITY: weakref.WeakKeyDictionary[ServerState, HttpCapacity] = weakref.WeakKeyDictionary()


class Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's head, a 431 for a head too large,
    and ``limit_concurrency`` counting HTTP requests in progress (``HttpCapacity``), not connections."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_head = self.config.h11_max_incomplete_event_size or h11.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
        self.head_timeout = header_timeout()
        self.head_timer: asyncio.TimerHandle | None = None
        # uvicorn's own check counts every connection (sockets, silent ones): off, and ours instead
        limit, self.limit_concurrency = self.limit_concurrency, None
        if limit is not None:
            self.app = HttpCapacity.of(self.server_state, self.app, limit)

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


class SocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the websockets library, sans I/O) where every frame a client sends
    costs a token of the socket's rate limit (ATTENTION_TALK_ROOM_RATE_LIMIT, bursts of twice that):
    pings and pongs, which the app never sees, and each fragment but the last of a message; the app
    spends one for each whole message, from the same bucket (``RATE_LIMIT_EXTENSION``). Past it the
    socket gets the app's error message and closes with 4429, as the app does. Text that is not UTF-8
    closes it with 1007 and an INFO line; a handshake the app refused with an HTTP response is done,
    not an error."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rate = worker_settings().room_rate_limit
        self.limit = RateLimit(rate, 2 * rate)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was malformed (already refused)
        if scope is not None:
            scope["extensions"][RATE_LIMIT_EXTENSION] = {"limit": self.limit}

    def handle_ping(self) -> None:
        if self._spend():
            super().handle_ping()

    def handle_pong(self, event: Frame) -> None:
        if self._spend():
            super().handle_pong(event)

    def handle_text(self, event: Frame) -> None:
        if event.fin or self._spend():
            super().handle_text(event)

    def handle_bytes(self, event: Frame) -> None:
        if event.fin or self._spend():
            super().handle_bytes(event)

    def handle_cont(self, event: Frame) -> None:
        if event.fin or self._spend():
            super().handle_cont(event)

    def _spend(self) -> bool:
        """Take a token for a frame; False (and the socket closing) when there is none."""
        if self.close_sent:
            return False  # closing: nothing more is answered
        if self.limit.allow():
            return True
        self.conn.send_text(error(TOO_MANY_MESSAGES).encode())
        self.conn.send_close(TOO_MANY, TOO_MANY_MESSAGES)
        self._start_closing(TOO_MANY)
        return False

    def send_receive_event_to_app(self) -> None:
        if self.curr_msg_data_type == "text" and not self.close_sent:
            try:
                b"".join(self.frames).decode()
            except UnicodeDecodeError:
                self.frames = []
                self.logger.info("%s - WebSocket text that is not UTF-8: closed (1007)", _peer(self.client))
                self.conn.send_close(NOT_UTF8, "text must be UTF-8")
                self._start_closing(NOT_UTF8)
                return
        super().send_receive_event_to_app()

    def _start_closing(self, code: int) -> None:
        """Send what the protocol has queued (the close frame last) and tell the app; then wait for the
        client's close frame, as for the app's own close, up to ``close_timeout``. (Closing the
        transport at once would reset a connection the client is still writing to, and the client
        would lose the error and the close frame: 1006 instead of ``code``.)"""
        self.queue.put_nowait({"type": "websocket.disconnect", "code": code})
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        if self.read_paused:
            self.read_paused = False
            self.transport.resume_reading()
        self.close_timer = self.loop.call_later(self.close_timeout, self.transport.close)

    async def send(self, message: Any) -> None:
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # the app's HTTP response ended the handshake


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "-"
