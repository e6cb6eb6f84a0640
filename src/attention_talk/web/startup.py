"""Start-up: the server answers first, the heavy work follows.

``attention-talk serve`` imports only what answering needs (no NumPy, no chapter builders, no model
code, no deck read: ``tests/test_startup.py`` checks it). The work that makes the first visit fast —
reading the decks, building their frames, loading the real model — starts ``AFTER_START`` seconds
after the app's start-up (the routers' lifespans call ``after_start``), by then the server has bound
its socket and answered its health checks. It runs in daemon threads, never on the event loop; a
request that needs something not ready yet waits for it in a worker thread (``web/store.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

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
