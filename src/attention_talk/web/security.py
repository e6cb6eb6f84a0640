"""Security headers on every response (pure ASGI, so streaming and speed are untouched)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def csp(frame_ancestors: str = "'self'") -> str:
    """The Content-Security-Policy: everything from this origin only; no inline script; embedding
    by the pages ``frame_ancestors`` allows (``ATTENTION_TALK_FRAME_ANCESTORS``, checked by settings)."""
    return "; ".join([*_POLICY, f"frame-ancestors {frame_ancestors}"])


_POLICY = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
]
CSP = csp()


def headers(frame_ancestors: str = "'self'") -> list[tuple[bytes, bytes]]:
    """Every security header; X-Frame-Options (for browsers without CSP 2) only when it can say the
    same thing as frame-ancestors: SAMEORIGIN for 'self', DENY for 'none'."""
    out = [(b"content-security-policy", csp(frame_ancestors).encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-opener-policy", b"same-origin")]
    legacy = {"'self'": b"SAMEORIGIN", "'none'": b"DENY"}.get(frame_ancestors)
    return [*out, (b"x-frame-options", legacy)] if legacy else out


HEADERS = headers()


class SecurityHeaders:
    def __init__(self, app: ASGIApp, frame_ancestors: str = "'self'") -> None:
        self.app = app
        self.headers = headers(frame_ancestors)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []),
                                      *((k, v) for k, v in self.headers if k not in present)]
            await send(message)

        await self.app(scope, receive, send_with_headers)
