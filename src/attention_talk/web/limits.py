"""Limits on what one request may take (pure ASGI and a small gate):

* ``HeaderLimit``: a request line plus headers larger than the limit gets 431 (the server's parser
  bounds a head that arrives in pieces, web/server.py; this catches one that arrived whole);
* ``BodyLimit``: a request body larger than the limit gets 413 before it is read, and one that does
  not arrive in full within ``timeout`` seconds gets 408 (a slow client cannot hold a worker);
* ``Gate``: at most ``size`` heavy requests compute at once; a request that cannot get a slot
  within ``wait`` seconds gets 503 with ``Retry-After`` and a JSON message saying why, and with a
  ``queue`` bound, one that finds that many already waiting gets the 503 at once.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from attention_talk.web.responses import JSON

CLOSE = {"Connection": "close"}  # the rest of the body is never read, so the connection cannot be reused


def head_size(scope: Scope) -> int:
    """The bytes of the request line and headers as sent (give or take the line endings)."""
    line = len(scope["method"]) + len(scope.get("raw_path") or scope["path"].encode()) + 12
    query = len(scope.get("query_string", b""))
    return line + query + sum(len(k) + len(v) + 4 for k, v in scope.get("headers", []))


def head_too_large(max_bytes: int) -> str:
    return f"headers: the request line and headers are larger than the limit of {max_bytes} bytes"


class HeaderLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and head_size(scope) > self.max_bytes:
            reason = head_too_large(self.max_bytes)
            await JSON({"message": reason, "detail": reason}, status_code=431, headers=CLOSE)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int, timeout: float = 10.0) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout = timeout

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
            await JSON({"message": reason, "detail": reason}, status_code=status, headers=CLOSE)(
                scope, receive, send)
            return
        received = 0
        deadline: float | None = None  # set at the first read of the body
        body_done = False

        async def counted_receive() -> Message:
            nonlocal received, deadline, body_done
            if body_done:  # after the body, receive() only waits for a disconnect: no deadline
                return await receive()
            if deadline is None:
                deadline = anyio.current_time() + self.timeout
            try:
                with anyio.fail_after(max(0.0, deadline - anyio.current_time())):
                    message = await receive()
            except TimeoutError:
                # Raised inside the route's body read, so the app's HTTP error handler answers.
                raise HTTPException(status_code=408, headers=CLOSE, detail=(
                    f"body: not received in full within {self.timeout:g} s "
                    f"({received} bytes arrived); send it faster")) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                body_done = not message.get("more_body", False)
                if received > self.max_bytes:
                    raise HTTPException(status_code=413, detail=self.too_large(), headers=CLOSE)
            else:
                body_done = True
            return message

        await self.app(scope, counted_receive, send)


class Gate:
    """At most ``size`` holders at once; ``slot()`` waits up to ``wait`` seconds, then 503. With
    ``queue``, at most that many wait: one more gets the 503 at once (a burst cannot pile up work
    that would answer long after its clients gave up)."""

    def __init__(self, size: int, wait: float, what: str, queue: int | None = None) -> None:
        self.size = size
        self.wait = wait
        self.what = what
        self.queue = queue
        self.waiting = 0  # requests waiting for a slot now
        self.refused = 0  # 503s answered so far
        self._semaphore = anyio.Semaphore(size)

    @property
    def retry_after(self) -> int:
        """Whole seconds to name in Retry-After: the longest a request waits for a slot."""
        return max(1, math.ceil(self.wait))

    @property
    def taken(self) -> int:
        """Slots held now."""
        return self.size - int(self._semaphore.value)

    def busy(self, why: str) -> HTTPException:
        self.refused += 1
        retry = self.retry_after
        return HTTPException(status_code=503, headers={"Retry-After": str(retry)},
                             detail=f"busy: {why}; retry in {retry} s")

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        try:
            self._semaphore.acquire_nowait()
        except anyio.WouldBlock:
            await self._wait_for_slot()
        try:
            yield
        finally:
            self._semaphore.release()

    async def _wait_for_slot(self) -> None:
        if self.queue is not None and self.waiting >= self.queue:
            raise self.busy(f"all {self.size} slots for {self.what} are taken and the queue is full "
                            f"({self.waiting} waiting)") from None
        acquired = False
        self.waiting += 1
        try:
            with anyio.move_on_after(self.wait):
                await self._semaphore.acquire()
                acquired = True
        finally:
            self.waiting -= 1
        if not acquired:
            raise self.busy(f"all {self.size} slots for {self.what} stayed taken for {self.wait:g} s") from None
