"""Start-up: the server answers first, the heavy work follows.

``attention-talk serve`` imports only what answering needs: no NumPy, no chapter builders, no model
code, no deck read (``tests/test_startup.py`` checks it). The work that makes the first visit fast
— preparing the routes, reading the decks, building their frames, loading the real model — starts
``AFTER_START`` seconds after the app's start-up (the app's ``lifespan`` and the model router's
call ``after_start``); by then the server has bound its socket and answered its health checks. It
runs in daemon threads, never on the event loop, and while it runs the interpreter hands its lock
to another thread after 1 ms instead of 5 (``web/offload.py``: ``in_background``), so the event
loop keeps answering; a request that needs something not ready yet waits for it in a worker thread
(``off_loop``, ``web/deps.py``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import fastapi.routing
from fastapi import FastAPI

from attention_talk.web.offload import in_background

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


async def prepare_routes(app: FastAPI) -> None:
    """Have FastAPI prepare every included route now (the models of its parameters and response),
    which it otherwise does on the first request reaching each router: on the event loop, one
    router at a time with a pause between (from a thread, a request would wait on the loop for
    FastAPI's lock while that thread shares the interpreter with the warm)."""
    iterate = getattr(fastapi.routing, "iter_route_contexts", None)  # FastAPI ≥ 0.160 keeps routers nested
    if iterate is None:  # pragma: no cover - older FastAPI prepares routes as they are included
        return
    for route in list(app.routes):
        for _ in iterate([route]):
            pass
        await asyncio.sleep(0)  # let requests in between routers


def import_request_modules() -> None:
    """Import what the first requests need and start-up left out: NumPy with the lab's maths (the
    illustrative chain, its wire form, the cells it explains, the real model's views), and the Jinja
    templates (each page compiled)."""
    import attention_talk.lab.cells
    import attention_talk.lab.chain
    import attention_talk.lab.model_view
    import attention_talk.lab.wire  # noqa: F401
    from attention_talk.web.templates import templates

    templates.compile_pages()


def settle() -> None:
    """Once the designed decks are built: collect once and move every object alive then out of the
    garbage collector's sight (``gc.freeze``); otherwise each full collection walks the ~100,000
    objects of the app and its frames (measured on 2 busy cores: 50–240 ms in the middle of a
    POST /api/attention, its p99; after the freeze, 0.2 ms). Then BLAS goes to one thread for good
    (``lab.one_blas_thread_per_request``: the server's parallelism is its requests)."""
    import gc

    from attention_talk.lab.chain import one_blas_thread_per_request

    gc.collect()
    gc.freeze()
    one_blas_thread_per_request()


def warm(app: FastAPI) -> threading.Thread:
    """In a daemon thread: import what requests need, then read the decks and build those from
    designed inputs (``Store.warm``; the model's router warms the decks that need the model once it
    has loaded)."""

    def run() -> None:
        import_request_modules()
        app.state.store.warm(model=False)
        settle()

    return in_background(run, "warm-app")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The app's lifespan: once the server answers, ``warm`` in a thread and prepare the routes on the
    event loop."""
    tasks: set[asyncio.Task] = set()

    def start() -> None:
        warm(app)
        tasks.add(asyncio.get_running_loop().create_task(prepare_routes(app)))

    async with after_start(start):
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
