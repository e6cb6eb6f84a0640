"""Engine speed tables: attend (every intermediate kept) and flash_attend vs a bare one-liner.

Run with ``make bench``. Prints medians of several runs measured with time.perf_counter in one
process; never asserts (wall-clock times depend on the machine).
"""

from __future__ import annotations

import platform
import statistics
import time

import numpy as np

from attention_talk.engine import attend, flash_attend

D_K = 128
SIZES = (7, 128, 1024, 4096)
BLOCK_SIZE = 256
ATTEND_TARGET = 1.3  # attend ≤ 1.3 × bare for n ≥ 1024
FLASH_TARGET = 3.0  # flash ≤ 3 × bare


def bare(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    """softmax(Q Kᵀ / √d_k) V in NumPy, nothing kept."""
    s = q @ k.T / np.sqrt(q.shape[1])  # (n, n)
    e = np.exp(s - s.max(axis=1, keepdims=True))  # (n, n)
    return (e / e.sum(axis=1, keepdims=True)) @ v  # (n, d_v)


def median_seconds(fn, repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fmt_time(seconds: float) -> str:
    return f"{seconds * 1e3:9.3f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} µs"


def main() -> None:
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, d_k = {D_K}, float64, "
          f"median of repeats; flash block size {BLOCK_SIZE}")
    print(f"targets: attend ≤ {ATTEND_TARGET}× bare at n ≥ 1024; flash ≤ {FLASH_TARGET}× bare\n")
    header = (f"{'n':>5} {'reps':>4} | {'bare':>12} | {'attend':>12} {'ratio':>6} {'target':>7} | "
              f"{'flash':>12} {'ratio':>6} {'target':>7} | {'max |flash - bare|':>18}")
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for n in SIZES:
        q, k, v = (rng.normal(size=(n, D_K)) for _ in range(3))
        repeats = 200 if n <= 128 else (15 if n <= 1024 else 5)
        t_bare = median_seconds(lambda q=q, k=k, v=v: bare(q, k, v), repeats)
        t_attend = median_seconds(lambda q=q, k=k, v=v: attend(q, k, v), repeats)
        t_flash = median_seconds(lambda q=q, k=k, v=v: flash_attend(q, k, v, block_size=BLOCK_SIZE), repeats)
        r_attend, r_flash = t_attend / t_bare, t_flash / t_bare
        attend_met = ("met" if r_attend <= ATTEND_TARGET else "MISSED") if n >= 1024 else "-"
        flash_met = "met" if r_flash <= FLASH_TARGET else "MISSED"
        err = np.abs(flash_attend(q, k, v, block_size=BLOCK_SIZE).output - bare(q, k, v)).max()
        print(f"{n:>5} {repeats:>4} | {fmt_time(t_bare)} | "
              f"{fmt_time(t_attend)} {r_attend:5.2f}× {attend_met:>7} | "
              f"{fmt_time(t_flash)} {r_flash:5.2f}× {flash_met:>7} | {err:18.2e}")


if __name__ == "__main__":
    main()
