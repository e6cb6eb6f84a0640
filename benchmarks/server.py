"""HTTP speed tables: start-up, frames vs a static file of the same bytes under load, and the live
attention API's latency.

Run with ``make bench``. Load comes from ``wrk`` (Debian package ``wrk``) when it is installed,
else from an asyncio + httpx client (slower: it then measures the client as much as the server).
Everything is on loopback and bounded in time; nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from _serve import BIN, main_thread_cpu, percentile, serving, spawned, verdict

CONNECTIONS = 32
SECONDS = 10
FRAMES_TARGET = 0.9  # frames requests/s ≥ 0.9 × the static file's
STARTUP_TARGET = 1.0  # seconds
STARTUP_RUNS = 5
WARM_SECONDS = 8  # /healthz probed this long after start-up, while the background warm runs
ATTENTION_TARGET_P99 = 0.020  # seconds
ATTENTION_BODY = {"tokens": [f"t{i}" for i in range(64)], "d_model": 512, "heads": 8}  # default include
EVERYTHING = ["q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]  # 294,912 numbers


def bench_app():
    """The production app plus one static folder holding a copy of a frames body (``--factory``)."""
    from fastapi.staticfiles import StaticFiles

    from attention_talk.web import create_app

    app = create_app()
    app.mount("/bench-static", StaticFiles(directory=os.environ["BENCH_STATIC_DIR"]), name="bench")
    return app


def wrk(url: str, headers: dict[str, str]) -> dict:
    args = ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{SECONDS}s", "--latency", url]
    for k, v in headers.items():
        args[1:1] = ["-H", f"{k}: {v}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    unit = {"us": 1e-6, "ms": 1e-3, "s": 1.0}

    def latency(p: str) -> float:
        value, u = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)$", out, flags=re.M).groups()
        return float(value) * unit[u]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
            "p50": latency("50"), "p99": latency("99"), "errors": int(errors.group(1)) if errors else 0}


async def _python_load(url: str, headers: dict[str, str]) -> dict:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + SECONDS
    limits = httpx.Limits(max_connections=CONNECTIONS)
    async with httpx.AsyncClient(limits=limits, headers=headers) as client:
        async def worker() -> None:
            nonlocal errors
            while time.perf_counter() < deadline:
                start = time.perf_counter()
                r = await client.get(url)
                latencies.append(time.perf_counter() - start)
                errors += r.status_code != 200

        await asyncio.gather(*(worker() for _ in range(CONNECTIONS)))
    return {"rps": len(latencies) / SECONDS, "p50": percentile(latencies, 50),
            "p99": percentile(latencies, 99), "errors": errors}


def load(url: str, headers: dict[str, str]) -> dict:
    if shutil.which("wrk"):
        return wrk(url, headers)
    return asyncio.run(_python_load(url, headers))


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def startup_table(runs: int = STARTUP_RUNS) -> None:
    from attention_talk.paths import data_dir
    from attention_talk.web.startup import AFTER_START
    from attention_talk.web.store import Store

    start = time.perf_counter()
    lazy = Store.load(data_dir("slides"), eager=False)
    lazy_s = time.perf_counter() - start
    start = time.perf_counter()
    lazy.read()
    read_s = time.perf_counter() - start
    start = time.perf_counter()
    store = Store.load(data_dir("slides"))
    load_s = time.perf_counter() - start
    times, cpus, first_decks = [], [], []
    for _ in range(runs):
        with spawned() as (url, seconds, proc):
            healthy_at = time.perf_counter()
            times.append(seconds)
            cpus.append(main_thread_cpu(proc.pid))
            httpx.get(f"{url}/api/decks", timeout=30).raise_for_status()  # the decks read on demand
            first_decks.append(seconds + time.perf_counter() - healthy_at)
    with spawned() as (url, _, _):
        during = warm_probe(url)
    median = statistics.median(times)
    print(f"## Start-up (`attention-talk serve`, 1 worker; {len(lazy.pending)} decks read on first use, "
          f"their {len(store.frames)} slides' frames built in the background from {AFTER_START} s after "
          "start-up)\n")
    print("| what | time | target |")
    print("| --- | --- | --- |")
    print(f"| Store.load(eager=False) in this process (the app's factory: the folder checked, nothing read) "
          f"| {ms(lazy_s)} | |")
    print(f"| Store.read in this process (decks read and checked; imports every chapter) | {ms(read_s)} | |")
    print(f"| Store.load in this process (decks + every designed deck's frames) | {ms(load_s)} | |")
    print(f"| spawn → first 200 from /healthz, median of {runs} (runs: {', '.join(f'{t:.2f}' for t in times)} s) "
          f"| {ms(median)} | < {STARTUP_TARGET:.1f} s: {verdict(median < STARTUP_TARGET)} |")
    if None not in cpus:
        print(f"| the server's main thread's CPU time by then, median (runs: {', '.join(f'{c:.2f}' for c in cpus)} s; "
              "varies less with the machine's load) | " f"{ms(statistics.median(cpus))} | |")
    print(f"| spawn → first 200 from /api/decks (asked for just after the first healthy answer), median | "
          f"{ms(statistics.median(first_decks))} | |")
    print(f"| /healthz during the {WARM_SECONDS:.0f} s after that (background: routes prepared, decks read and "
          f"built, the model loaded), one client, {len(during)} requests: p50 / p99 / max | "
          f"{ms(percentile(during, 50))} / {ms(percentile(during, 99))} / {ms(max(during))} | |\n")


def warm_probe(url: str) -> list[float]:
    """/healthz latencies, one request after another, for WARM_SECONDS after the server is healthy."""
    latencies = []
    deadline = time.perf_counter() + WARM_SECONDS
    with httpx.Client(base_url=url, timeout=30) as client:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            client.get("/healthz").raise_for_status()
            latencies.append(time.perf_counter() - start)
            time.sleep(0.02)
    return latencies


def frames_table() -> None:
    from attention_talk.paths import data_dir
    from attention_talk.web.store import Store

    store = Store.load(data_dir("slides"))
    (deck, slide), payload = max(store.frames.items(), key=lambda kv: len(kv[1].body))
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "frames.json").write_bytes(payload.body)
        from attention_talk.web.server import PROTOCOL

        # The HTTP protocol `attention-talk serve` uses (h11 with a header limit and timeout).
        cmd = [str(BIN / "python"), "-m", "uvicorn", "server:bench_app", "--factory",
               "--app-dir", str(Path(__file__).parent), "--workers", "1", "--log-level", "warning",
               "--http", PROTOCOL, "--h11-max-incomplete-event-size", "16384"]
        with serving(cmd, env={"BENCH_STATIC_DIR": folder}) as (url, _):
            frames_url = f"{url}/api/decks/{deck}/slides/{slide}/frames"
            static_url = f"{url}/bench-static/frames.json"
            assert httpx.get(frames_url).content == httpx.get(static_url).content  # same bytes
            tool = "wrk" if shutil.which("wrk") else "asyncio+httpx (install wrk for truer numbers)"
            print(f"## Frames API vs a static file of the same {len(payload.body):,} bytes "
                  f"({deck}/{slide})\n")
            print(f"{tool}, {CONNECTIONS} connections, {SECONDS} s each, loopback, one server "
                  f"process (access log on, as in production) sharing {os.cpu_count()} cores with "
                  "the load generator.\n")
            print("| Accept-Encoding | what | requests/s | p50 | p99 | non-2xx | frames ÷ static | target |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
            for encoding in ("identity", "br, gzip"):
                headers = {"Accept-Encoding": encoding}
                frames = load(frames_url, headers)
                static = load(static_url, headers)
                ratio = frames["rps"] / static["rps"]
                for name, r in (("frames", frames), ("static file", static)):
                    tail = (f"{ratio:.2f}× | ≥ {FRAMES_TARGET}×: {verdict(ratio >= FRAMES_TARGET)}"
                            if name == "frames" else " | ")
                    print(f"| {encoding} | {name} | {r['rps']:,.0f} | {ms(r['p50'])} | {ms(r['p99'])} | "
                          f"{r['errors']} | {tail} |")
            print()
            attention_table(url)


def attention_table(url: str) -> None:
    print("## POST /api/attention: 64 tokens, d_model 512, 8 heads (one client, sequential)\n")
    print("| case | requests | response | p50 | p99 | target p99 < 20 ms |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    cases = [("default include, same seed (weights cached), identity", {"Accept-Encoding": "identity"}, False, {}),
             ("default include, same seed, br as a browser asks", {"Accept-Encoding": "gzip, deflate, br, zstd"},
              False, {}),
             ("default include, a new seed each request, identity", {"Accept-Encoding": "identity"}, True, {}),
             ("every tensor, same seed, identity", {"Accept-Encoding": "identity"}, False,
              {"include": EVERYTHING})]
    with httpx.Client(base_url=url, timeout=30) as client:
        for name, headers, new_seed, extra in cases:
            times, size = [], 0
            for i in range(210):
                body = {**ATTENTION_BODY, **extra, "seed": 1000 + i if new_seed else 0}
                start = time.perf_counter()
                with client.stream("POST", "/api/attention", json=body, headers=headers) as r:
                    size = len(b"".join(r.iter_raw()))
                    assert r.status_code == 200
                if i >= 10:  # warm-up
                    times.append(time.perf_counter() - start)
            p99 = percentile(times, 99)
            print(f"| {name} | {len(times)} | {size / 1e6:.2f} MB | {ms(percentile(times, 50))} | {ms(p99)} | "
                  f"{verdict(p99 < ATTENTION_TARGET_P99)} |")
    print()


def main() -> None:
    """Every table; ``server.py startup`` prints the start-up table alone."""
    load1, load5, _ = os.getloadavg()
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{load1:.1f} / {load5:.1f} (1 / 5 min) before the run: above the core count, expect noisy numbers\n")
    startup_table()
    if sys.argv[1:] != ["startup"]:
        frames_table()


if __name__ == "__main__":
    main()
