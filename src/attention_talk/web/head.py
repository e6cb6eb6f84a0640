"""HEAD on every GET route (pure ASGI): the app answers a HEAD exactly as it answers a GET (same
status, same headers, Content-Length included) and the body is dropped. FastAPI's routes list the
methods they were declared with, so without this a HEAD on ``/`` or ``/healthz`` would be a 405."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def send_without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {**message, "body": b""}
            await send(message)

        # A copy: the server keeps its own scope, which still says HEAD (uvicorn then sends no body).
        await self.app({**scope, "method": "GET"}, receive, send_without_body)
