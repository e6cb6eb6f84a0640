"""A request-body size limit (pure ASGI): 413 with a JSON message before the body is read."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attention_talk.web.responses import JSON


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def too_large(self) -> str:
        return f"body: larger than the limit of {self.max_bytes} bytes"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            reason = self.too_large() if declared.isdigit() else "content-length: not a number"
            status = 413 if declared.isdigit() else 400
            await JSON({"message": reason, "detail": reason}, status_code=status)(scope, receive, send)
            return
        received = 0

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # Raised inside the route's body read, so the app's HTTP error handler answers.
                    raise HTTPException(status_code=413, detail=self.too_large())
            return message

        await self.app(scope, counted_receive, send)
