"""Redirects that never name a host (pure ASGI).

Starlette's ``redirect_slashes`` builds an absolute URL from the request's Host header, so
``GET /api/decks/`` with ``Host: evil.example`` answered ``Location: http://evil.example/api/decks``.
The app turns that off (``FastAPI(redirect_slashes=False)``) and ``RelativeRedirects`` does both jobs:

* a path with a trailing slash that names a route without it gets a 307 to that path, relative
  (``Location: /api/decks?x=1``: path as sent, query kept);
* any other redirect the app produces has its Location made relative (path, query, fragment).

A relative Location always starts with exactly one ``/``: ``//host`` or ``/\\host`` would be read by
browsers as another host.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.responses import RedirectResponse
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def relative(path: str, query: str = "", fragment: str = "") -> str:
    """``path?query#fragment`` starting with a single ``/`` (so it can only name this host)."""
    return "/" + path.lstrip("/\\") + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def relative_location(location: bytes) -> bytes:
    """An absolute or scheme-relative Location made relative to this host; a relative one made safe."""
    parts = urlsplit(location.decode("latin-1"))
    if not (parts.scheme or parts.netloc or parts.path.startswith(("/", "\\"))):
        return location  # relative to the current path ("next", "../x"): cannot leave this host
    return relative(parts.path, parts.query, parts.fragment).encode("latin-1")


class RelativeRedirects:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        target = self.without_trailing_slash(scope)
        if target is not None:
            await RedirectResponse(target, status_code=307)(scope, receive, send)
            return

        async def send_relative(message: Message) -> None:
            if message["type"] == "http.response.start" and 300 <= message.get("status", 200) < 400:
                message = {**message, "headers": [(k, relative_location(v) if k.lower() == b"location" else v)
                                                  for k, v in message.get("headers", [])]}
            await send(message)

        await self.app(scope, receive, send_relative)

    @staticmethod
    def without_trailing_slash(scope: Scope) -> str | None:
        """The relative URL without the trailing slash, when the path has one and a route (any
        method) matches the path without it; else None."""
        path: str = scope["path"]
        if path == "/" or not path.endswith("/"):
            return None
        stripped = {**scope, "path": path.rstrip("/") or "/"}
        routes = getattr(getattr(scope.get("app"), "router", None), "routes", [])
        if not any(route.matches(stripped)[0] != Match.NONE for route in routes):
            return None
        raw = (scope.get("raw_path") or path.encode()).decode("latin-1").split("?")[0]
        return relative(raw.rstrip("/"), scope.get("query_string", b"").decode("latin-1"))
