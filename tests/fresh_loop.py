"""``run(coro)``: asyncio.run in a thread of its own. After the browser tests, pytest-playwright's
event loop is running in the main thread, where asyncio.run refuses to start another."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
