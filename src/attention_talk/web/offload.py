"""Work that must not run on the event loop, and the one way each kind leaves it.

* ``off_loop(fn, *args, **kwargs)``: work a request waits for (reading or building decks, NumPy,
  the model, compressing a large body) in a worker thread of anyio's pool, awaited. It is the pool
  FastAPI runs a plain ``def`` route in (starlette's ``run_in_threadpool``), so a page route and an
  ``async`` route's heavy part share one bound on threads (anyio's default: 40).
* ``in_background(fn, name)``: work nobody waits for (the start-up warm, the decks built once the
  model has loaded, the decks a room socket may need) in a daemon thread, ``responsive``: while it
  runs the interpreter hands its lock on after 1 ms instead of 5, so the event loop's thread gets
  it back soon when a request comes.

Kept apart on purpose:

* the model's own loading thread (``model/loading.py``, ``Loader.start``): the model package sits
  below ``web`` and is shared with the CLI, notebooks and tests, so it starts its thread itself
  (the web layer only calls ``start``, which returns at once);
* compression (``web/compression.py``) goes through ``off_loop`` only where it is slow: a body of
  64 KiB or more, and a payload's first compression at maximum effort. Measured on this machine
  (2 busy cores): a thread hop costs about 0.25 ms; a 56 kB JSON body takes 0.8 ms (zstd) to 3 ms
  (brotli 2) at the fast level, so a smaller body is compressed on the loop, while 2.7 MB takes
  66–230 ms fast and brotli 11 takes 0.3 s for 56 kB and 19 s for 2.7 MB.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

import anyio.to_thread

T = TypeVar("T")
WARM_SWITCH_INTERVAL = 0.001  # seconds a thread may hold the interpreter lock while background work runs

_warming = 0  # background threads running under `responsive`
_warming_lock = threading.Lock()
_switch_interval = sys.getswitchinterval()


async def off_loop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a worker thread, awaited; what it raises is raised here. A
    cancelled request waits for the call to finish (a thread cannot be stopped half-way)."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


def responsive(fn: Callable[[], object]) -> Callable[[], None]:
    """``fn`` with the interpreter's switch interval at WARM_SWITCH_INTERVAL while it (or another
    such function) runs: background work in pure Python (imports, pydantic frames) then gives the
    event loop's thread the lock sooner when it wakes up for a request. Restored when the last one
    ends."""

    def run() -> None:
        global _warming, _switch_interval
        with _warming_lock:
            if _warming == 0:
                _switch_interval = sys.getswitchinterval()
                sys.setswitchinterval(min(_switch_interval, WARM_SWITCH_INTERVAL))
            _warming += 1
        try:
            fn()
        finally:
            with _warming_lock:
                _warming -= 1
                if _warming == 0:
                    sys.setswitchinterval(_switch_interval)

    return run


def in_background(fn: Callable[[], object], name: str) -> threading.Thread:
    """Run ``fn`` in a daemon thread named ``name``, ``responsive``; nobody waits for it."""
    thread = threading.Thread(target=responsive(fn), name=name, daemon=True)
    thread.start()
    return thread
