"""HTTP compression and ETags, in one place.

Two paths, one set of rules:

* Precomputed JSON (manifests, frames) is a ``Payload``: its bytes, a strong ETag, and its
  compressed forms, each made once on first use with maximum effort. ``cached_json`` picks the
  coding from Accept-Encoding (``choose_coding``), answers 304 when If-None-Match matches, and
  sends the kept bytes.
* Everything else (HTML, JS, CSS, other JSON) is compressed on the fly by the ``Compress``
  middleware (starlette-compress: zstd, brotli or gzip). Bodies that already carry a
  Content-Encoding (the payloads above) pass through untouched.

A strong ETag names one exact byte sequence, so a compressed body's ETag is weak (``W/"…"``), as
nginx does; If-None-Match compares weakly (RFC 9110), so 304s work whatever the coding.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass, field

import brotli
import orjson
from fastapi import Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware

MINIMUM_SIZE = 500  # smaller bodies gain nothing from compression

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
        body = orjson.dumps(data)
        return cls(body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')

    def encoded(self, coding: str) -> bytes:
        """The body compressed with ``coding`` (one of ENCODERS)."""
        if coding not in self._encoded:
            self._encoded[coding] = ENCODERS[coding](self.body)
        return self._encoded[coding]


def choose_coding(request: Request) -> str | None:
    """The first of ENCODERS (br, gzip) that Accept-Encoding allows (q > 0, or via ``*``), else None."""
    quality: dict[str, float] = {}
    for item in request.headers.get("accept-encoding", "").split(","):
        name, _, params = item.partition(";")
        q = params.strip()
        try:
            quality[name.strip().lower()] = float(q[2:]) if q.startswith("q=") else 1.0
        except ValueError:
            quality[name.strip().lower()] = 0.0
    return next((c for c in ENCODERS if quality.get(c, quality.get("*", 0.0)) > 0), None)


def cached_json(request: Request, payload: Payload, max_age: int) -> Response:
    """Send ``payload`` (brotli or gzip when accepted, compressed once and kept), or 304 when the
    client already holds this version. The ETag is strong for the identity bytes and weak for a
    compressed body (same content, other bytes); If-None-Match compares weakly, as RFC 9110 says."""
    coding = choose_coding(request)
    etag = payload.etag if coding is None else "W/" + payload.etag
    headers = {"ETag": etag, "Cache-Control": f"public, max-age={max_age}, must-revalidate",
               "Vary": "Accept-Encoding"}
    match = request.headers.get("if-none-match", "")
    if payload.etag in {tag.strip().removeprefix("W/") for tag in match.split(",")} or match.strip() == "*":
        return Response(status_code=304, headers=headers)
    if coding is None:
        return Response(payload.body, media_type="application/json", headers=headers)
    return Response(payload.encoded(coding), media_type="application/json",
                    headers={**headers, "Content-Encoding": coding})


# ---------------------------------------------------------------------------------------------
# every other response: compressed on the fly, its ETag weakened


class Compress:
    """starlette-compress for every HTTP response, then ``weaken_etag_if_encoded``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = CompressMiddleware(app, minimum_size=MINIMUM_SIZE)

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
