"""One BLAS thread while the model computes.

The model's products are small (at most 64 rows), so OpenBLAS's worker threads buy little and, on a
machine whose cores are busy with other work, cost a great deal: each of the few hundred products
of a forward pass waits for threads to wake (measured on 2 busy cores: a 5-token pass 5.5 s with
OpenBLAS's default threads, 1.2 s with one). The limit is process-wide while it holds, so model
runs take a lock and run one at a time (which also bounds their memory).

Two threads were measured again for the lab's keystroke (one new token over a kept prefix, then one
position's logits: memory-bound products over ~1 GB of float64 weights) with the 2 cores shared
(load average 4–5): wall time about the same (median 80–108 ms against 85–96 ms with one thread),
CPU time doubled (138–158 ms against 77–86 ms), and a full 16-token pass up to 4× slower (855 ms
against 200 ms). So one thread it stays.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

_LOCK = threading.RLock()
_FOR_GOOD = False  # one_blas_thread_for_good was called: every run ends at one thread too


@cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the body with BLAS limited to one thread, one model run at a time. On the way out the
    limit goes back to what it was when the run began, unless the process has meanwhile asked for one
    thread for good: a run that began before that must not give BLAS its threads back."""
    with _LOCK:
        try:
            with _controller().limit(limits=1, user_api="blas"):
                yield
        finally:
            if _FOR_GOOD:
                _controller().limit(limits=1, user_api="blas")


def one_blas_thread_for_good() -> None:
    """BLAS at one thread in this process from now on, model runs included (the server: its
    parallelism is its requests). Needs no lock: whichever of this and a run's way out comes last,
    the process ends at one thread."""
    global _FOR_GOOD
    _FOR_GOOD = True
    _controller().limit(limits=1, user_api="blas")
