"""The app, answering without a network (``get``) or on a free loopback port (``serving``)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import uvicorn
from starlette.types import ASGIApp


class ExportError(RuntimeError):
    """One line for the user: what failed and what to do."""


def get(app: ASGIApp, path: str, query: str = "") -> bytes:
    """GET ``path`` from the ASGI ``app`` in this process; the body, or ExportError unless 200. (In a
    thread of its own when this one already runs an event loop.)"""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_get(app, path, query))
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _get(app, path, query)).result()


async def _get(app: ASGIApp, path: str, query: str) -> bytes:
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
             "root_path": "", "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"127.0.0.1"), (b"accept-encoding", b"identity")]}
    status, chunks = 0, []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    if status != 200:
        raise ExportError(f"GET {path}{'?' + query if query else ''} answered {status}")
    return b"".join(chunks)


@contextmanager
def serving(app: ASGIApp, *, lifespan: str = "off") -> Iterator[str]:
    """Serve ``app`` on a free loopback port in a thread; yields its base URL. The export reads
    pages only (``lifespan="off"``: no background work); the browser tests run the app's whole
    life (``"on"``)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan=lifespan))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise ExportError("the local server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
