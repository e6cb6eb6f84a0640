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

# The browser features a page may use. The talk asks for one, full screen (F; in an <iframe> only
# where the embedding page also grants it with allow="fullscreen"), so it is this origin's alone;
# everything else a page could ask for is refused outright, for this page and anything it frames.
# Only names Chromium knows: an unknown one is a console warning on every page.
ALLOWED_FEATURES = {"fullscreen": "(self)"}
DENIED_FEATURES = ("accelerometer", "autoplay", "camera", "clipboard-read", "clipboard-write",
                   "display-capture", "encrypted-media", "geolocation", "gyroscope", "hid", "idle-detection",
                   "magnetometer", "microphone", "midi", "payment", "picture-in-picture",
                   "publickey-credentials-get", "screen-wake-lock", "serial", "usb",
                   "xr-spatial-tracking")
PERMISSIONS_POLICY = ", ".join([*(f"{name}={allow}" for name, allow in ALLOWED_FEATURES.items()),
                                *(f"{name}=()" for name in DENIED_FEATURES)])


def headers(frame_ancestors: str = "'self'") -> list[tuple[bytes, bytes]]:
    """Every security header; X-Frame-Options (for browsers without CSP 2) only when it can say the
    same thing as frame-ancestors: SAMEORIGIN for 'self', DENY for 'none'."""
    out = [(b"content-security-policy", csp(frame_ancestors).encode()),
           (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-opener-policy", b"same-origin"),
           (b"permissions-policy", PERMISSIONS_POLICY.encode())]
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
