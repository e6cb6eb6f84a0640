"""``run(coro)``: asyncio.run in a thread of its own, and ``run_anyio(fn, *args)``: anyio.run likewise.
After the browser tests, pytest-playwright's event loop is running in the main thread, where
asyncio.run and anyio.run refuse to start another."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


def run_anyio(fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
    import anyio

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, fn, *args).result()
