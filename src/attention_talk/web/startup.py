"""Start-up: the server answers first, the heavy work follows.

``attention-talk serve`` imports only what answering needs: no NumPy, no chapter builders, no model
code, no deck read (``tests/test_startup.py`` checks it). The work that makes the first visit fast
— preparing the routes, reading the decks, building their frames, loading the real model — starts
``AFTER_START`` seconds after the app's start-up (the app's ``lifespan`` and the model router's
call ``after_start``); by then the server has bound its socket and answered its health checks. It
runs in daemon threads, never on the event loop; a request that needs something not ready yet waits
for it in a worker thread (``web/store.py``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import fastapi.routing
from fastapi import FastAPI

AFTER_START = 0.5  # seconds from the end of the app's start-up to the background work


@asynccontextmanager
async def after_start(start: Callable[[], object], delay: float = AFTER_START) -> AsyncIterator[None]:
    """Within a lifespan: call ``start`` (which must only start threads) on the event loop ``delay``
    seconds after the app's start-up; not at all if the app stops before."""
    handle = asyncio.get_running_loop().call_later(delay, start)
    try:
        yield
    finally:
        handle.cancel()


def prepare_routes(app: FastAPI) -> None:
    """Have FastAPI prepare every included route now (the models of its parameters and response),
    which it otherwise does on the first request reaching each router."""
    iterate = getattr(fastapi.routing, "iter_route_contexts", None)  # FastAPI ≥ 0.160 keeps routers nested
    for _ in iterate(app.routes) if iterate is not None else ():
        pass


def import_request_modules() -> None:
    """Import what the first requests need and start-up left out: NumPy with the live attention
    chain and the lab's code, and the Jinja templates (each page compiled)."""
    import attention_talk.playground
    import attention_talk.web.lab_data  # noqa: F401
    from attention_talk.web.routes.pages import templates

    templates.compile_pages()


def warm(app: FastAPI) -> threading.Thread:
    """In a daemon thread: import what requests need, then read the decks and build those from
    designed inputs (``Store.warm``; the model's router warms the decks that need the model once it
    has loaded)."""

    def run() -> None:
        import_request_modules()
        app.state.store.warm(model=False)

    thread = threading.Thread(target=run, name="warm-app", daemon=True)
    thread.start()
    return thread


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The app's lifespan: once the server answers, prepare the routes (on the event loop: ~20 ms,
    once; from a thread, a request would wait on the event loop for FastAPI's lock while that thread
    shares the interpreter with the warm), then ``warm`` in a thread."""

    def start() -> None:
        prepare_routes(app)
        warm(app)

    async with after_start(start):
        yield
