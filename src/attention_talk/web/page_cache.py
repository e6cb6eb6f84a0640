"""HTML pages are revalidated on every visit: ``Cache-Control: no-cache`` and an ETag of the page's
bytes, so a conditional GET of an unchanged page is a body-less 304 (pure ASGI).

A page shows its deck's words (every caption is in the HTML) and the decks on offer, which change
when a deck file is edited and the server restarts. Without a Cache-Control header a browser may
reuse a page for a tenth of its age on its own guess, and then show the old words beside new frames;
a max-age has the same fault for its whole length. ``no-cache`` asks every time, and the ETag keeps
that cheap: the bytes are hashed (BLAKE2b, a few microseconds for a talk page), nothing is stored.
Error pages (the 503 "the model is missing" page) get ``no-cache`` too but no ETag: a browser must
not hold on to them. Sits inside ``Compress``, so the ETag names the identity bytes and compression
weakens it (``W/``) as it does every other ETag."""

from __future__ import annotations

import hashlib

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_CACHE_CONTROL = "no-cache"


def page_etag(body: bytes) -> str:
    """A strong ETag naming these exact bytes."""
    return f'"{hashlib.blake2b(body, digest_size=16).hexdigest()}"'


def matches(if_none_match: str, etag: str) -> bool:
    """RFC 9110's weak comparison: ``W/"x"`` and ``"x"`` name the same page; ``*`` matches any."""
    tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return etag in tags or "*" in tags


def is_html(start: Message) -> bool:
    return any(k.lower() == b"content-type" and v.lower().startswith(b"text/html") for k, v in start.get("headers", []))


class PageValidators:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        asked = b",".join(v for k, v in scope.get("headers", []) if k == b"if-none-match").decode("latin-1")
        start: Message | None = None
        body: list[bytes] = []

        async def send_validated(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                if not is_html(message):
                    await send(message)
                    return
                start = message  # held until the whole page is here: its ETag is its bytes' hash
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await send_page(start, b"".join(body), asked, send)

        await self.app(scope, receive, send_validated)


async def send_page(start: Message, page: bytes, asked: str, send: Send) -> None:
    """The page with its validators, or a 304 when the client holds these bytes already."""
    start = {**start, "headers": list(start.get("headers", []))}
    headers = MutableHeaders(scope=start)
    headers.setdefault("Cache-Control", PAGE_CACHE_CONTROL)
    if start["status"] != 200:
        await send(start)
        await send({"type": "http.response.body", "body": page})
        return
    etag = headers.setdefault("ETag", page_etag(page))
    if asked and matches(asked, etag):
        kept = [(k, v) for k, v in start["headers"] if k.lower() not in (b"content-length", b"content-type")]
        await send({"type": "http.response.start", "status": 304, "headers": kept})
        await send({"type": "http.response.body", "body": b""})
        return
    await send(start)
    await send({"type": "http.response.body", "body": page})
