"""HTTP compression and ETags, in one place.

Two paths, one set of rules:

* Precomputed JSON (manifests, frames) is a ``Payload``: its bytes, a strong ETag, and its
  compressed forms, each made once on first use with maximum effort. ``cached_json`` picks the
  coding from Accept-Encoding (``choose_coding``), answers 304 when If-None-Match matches, and
  sends the kept bytes. The player's JS and CSS go the same way (``cached_body``, from
  ``web/static.py``: their comments stripped, then compressed once per version of the file).
* Everything else (HTML, JS, CSS, other JSON) is compressed on the fly by the ``Compress``
  middleware (starlette-compress: zstd, brotli or gzip). Bodies that already carry a
  Content-Encoding (the payloads above) pass through untouched.
* Never on the event loop for a large body: compressing megabytes takes a core for a good part of
  a second, and every other request would wait. A one-piece body of ``OFFLOAD_SIZE`` bytes or more
  is compressed in a worker thread at a fast level (``FAST``) before starlette-compress sees it;
  routes that build large bodies in a thread anyway (``POST /api/attention``) compress them there
  with ``compress_fast`` and set Content-Encoding themselves.

A strong ETag names one exact byte sequence, so a compressed body's ETag is weak (``W/"…"``), as
nginx does; If-None-Match compares weakly (RFC 9110), so 304s work whatever the coding.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field

import brotli
import orjson
import zstandard
from fastapi import Request, Response
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware

from attention_talk.web.offload import off_loop

MINIMUM_SIZE = 500  # smaller bodies gain nothing from compression
# gzip on the fly at its best level: the bodies that reach it are under OFFLOAD_SIZE (a page, a
# module, a style sheet), where level 9 costs a fraction of a millisecond more than starlette-
# compress's default 4 and the first paint's ~40 files come about 1 kB lighter in all.
GZIP_LEVEL = 9
OFFLOAD_SIZE = 64 * 1024  # bodies this large are compressed in a worker thread, never on the event loop

ENCODERS = {  # content-coding → compress; maximum effort, as each body is compressed only once
    "br": lambda body: brotli.compress(body, quality=11),
    "gzip": lambda body: gzip.compress(body, compresslevel=9, mtime=0),
}


# ---------------------------------------------------------------------------------------------
# precomputed JSON: compressed once, sent with its ETag, or 304


@dataclass(frozen=True)
class Payload:
    """A JSON body with its strong ETag, and its compressed forms (made on first use, then kept)."""

    body: bytes
    etag: str
    _encoded: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, data: object) -> Payload:
        return cls.of_bytes(orjson.dumps(data))

    @classmethod
    def of_bytes(cls, body: bytes) -> Payload:
        return cls(body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')

    def encoded(self, coding: str) -> bytes:
        """The body compressed with ``coding`` (one of ENCODERS). Blocking the first time: at
        maximum effort, a frames body takes a good part of a second."""
        if coding not in self._encoded:
            self._encoded[coding] = ENCODERS[coding](self.body)
        return self._encoded[coding]

    def kept(self, coding: str) -> bytes | None:
        """The body compressed with ``coding`` if that is already done, else None (never blocks)."""
        return self._encoded.get(coding)


FAST = {  # content-coding → compress, at a fast level (about 0.1 s for 3 MB); the order of preference
    "zstd": lambda body: zstandard.ZstdCompressor(level=1).compress(body),  # as starlette-compress
    "br": lambda body: brotli.compress(body, quality=2),
    "gzip": lambda body: gzip.compress(body, compresslevel=1, mtime=0),
}
COMPRESSIBLE = {b"application/json", b"text/html", b"text/css", b"text/javascript", b"application/javascript",
                b"text/plain", b"image/svg+xml", b"application/xml", b"text/xml"}


def choose_coding(request: Request) -> str | None:
    """The first of ENCODERS (br, gzip) that Accept-Encoding allows (q > 0, or via ``*``), else None."""
    return pick_coding(request.headers.get("accept-encoding", ""), ENCODERS)


def compress_fast(body: bytes, accept_encoding: str) -> tuple[bytes, str | None]:
    """``body`` compressed with the first of FAST that Accept-Encoding allows, and that coding (or
    the body as is and None). Blocking: call it from a worker thread."""
    coding = pick_coding(accept_encoding, FAST)
    return (body, None) if coding is None else (FAST[coding](body), coding)


def pick_coding(accept_encoding: str, codings: dict) -> str | None:
    """The first of ``codings`` that the Accept-Encoding value allows (q > 0, or via ``*``), else None."""
    quality: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.partition(";")
        q = params.strip()
        try:
            quality[name.strip().lower()] = float(q[2:]) if q.startswith("q=") else 1.0
        except ValueError:
            quality[name.strip().lower()] = 0.0
    return next((c for c in codings if quality.get(c, quality.get("*", 0.0)) > 0), None)


async def cached_json(request: Request, payload: Payload, max_age: int) -> Response:
    """Send ``payload`` (brotli or gzip when accepted, compressed once and kept), or 304 when the
    client already holds this version. The ETag is strong for the identity bytes and weak for a
    compressed body (same content, other bytes); If-None-Match compares weakly, as RFC 9110 says.
    On the event loop, with no thread hop, except the first compression of a body (in a worker
    thread, at maximum effort)."""
    return await cached_body(request, payload, "application/json", f"public, max-age={max_age}, must-revalidate")


async def cached_body(request: Request, payload: Payload, media_type: str, cache_control: str) -> Response:
    """``cached_json`` for any body: ``payload`` sent as ``media_type`` with ``cache_control``
    (web/static.py sends the player's JS and CSS so, compressed once at maximum effort)."""
    coding = choose_coding(request)
    etag = payload.etag if coding is None else "W/" + payload.etag
    headers = {"ETag": etag, "Cache-Control": cache_control, "Vary": "Accept-Encoding"}
    match = request.headers.get("if-none-match", "")
    if payload.etag in {tag.strip().removeprefix("W/") for tag in match.split(",")} or match.strip() == "*":
        return Response(status_code=304, headers=headers)
    if coding is None:
        return Response(payload.body, media_type=media_type, headers=headers)
    body = payload.kept(coding)
    if body is None:
        body = await off_loop(payload.encoded, coding)
    return Response(body, media_type=media_type, headers={**headers, "Content-Encoding": coding})


# ---------------------------------------------------------------------------------------------
# every other response: compressed on the fly, its ETag weakened


class Compress:
    """starlette-compress for every HTTP response (large one-piece bodies first compressed in a
    thread by ``Offload``), then ``weaken_etag_if_encoded``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = CompressMiddleware(Offload(app), minimum_size=MINIMUM_SIZE, gzip_level=GZIP_LEVEL)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_weak_etag(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = weaken_etag_if_encoded(list(message.get("headers", [])))
            await send(message)

        await self.app(scope, receive, send_weak_etag)


def weaken_etag_if_encoded(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``ETag: "x"`` becomes ``W/"x"`` when the body carries a Content-Encoding."""
    if not any(k.lower() == b"content-encoding" for k, _ in headers):
        return headers
    return [(k, b"W/" + v if k.lower() == b"etag" and not v.startswith(b"W/") else v) for k, v in headers]


class Offload:
    """Compresses a one-piece body of OFFLOAD_SIZE bytes or more in a worker thread (FAST), and sets
    Content-Encoding so starlette-compress passes it on untouched. Streamed bodies (files) come in
    pieces of at most 64 KiB, which starlette-compress handles quickly."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        accept = b",".join(v for k, v in scope.get("headers", []) if k == b"accept-encoding").decode("latin-1")
        if scope["type"] != "http" or pick_coding(accept, FAST) is None:
            await self.app(scope, receive, send)
            return
        start: Message | None = None

        async def send_compressed(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and compressible(message):
                start = message  # held until the body shows whether it is large and in one piece
                return
            if start is not None:
                held, start = start, None
                body = message.get("body", b"")
                if (message["type"] == "http.response.body" and not message.get("more_body", False)
                        and len(body) >= OFFLOAD_SIZE):
                    body, coding = await off_loop(compress_fast, body, accept)
                    held = {**held, "headers": list(held.get("headers", []))}
                    headers = MutableHeaders(scope=held)
                    headers["Content-Encoding"] = coding
                    headers["Content-Length"] = str(len(body))
                    headers.add_vary_header("Accept-Encoding")
                    message = {**message, "body": body}
                await send(held)
            await send(message)

        await self.app(scope, receive, send_compressed)


def compressible(start: Message) -> bool:
    """A response start whose body may be compressed: a 2xx (not 204/205) of a text type, not
    already encoded, not a range."""
    if not 200 <= start.get("status", 200) < 300 or start.get("status") in (204, 205):
        return False
    headers = {k.lower(): v for k, v in start.get("headers", [])}
    if b"content-encoding" in headers or b"content-range" in headers:
        return False
    return headers.get(b"content-type", b"").split(b";")[0].strip().lower() in COMPRESSIBLE
