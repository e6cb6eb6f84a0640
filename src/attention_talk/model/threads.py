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


@cache
def _controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the body with BLAS limited to one thread, one model run at a time."""
    with _LOCK, _controller().limit(limits=1, user_api="blas"):
        yield
