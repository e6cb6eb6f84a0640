"""Compressed responses: zstd, brotli or gzip by the client's Accept-Encoding (starlette-compress),
for HTML, JS, CSS and JSON. Precomputed frames arrive already compressed (see responses.py) and
pass through untouched
(already weak-tagged).

A strong ETag names one exact byte sequence, so once the middleware has re-encoded a body its ETag
becomes weak (``W/"…"``), as nginx does; If-None-Match compares weakly, so 304s still work.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette_compress import CompressMiddleware

MINIMUM_SIZE = 500  # smaller bodies gain nothing from compression


class Compress:
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
