"""HTTP speed tables: start-up, frames vs a static file of the same bytes under load, and the live
attention API's latency.

Run with ``make bench``. Load comes from ``wrk`` (Debian package ``wrk``) when it is installed,
else from an asyncio + httpx client (slower: it then measures the client as much as the server).
Everything is on loopback and bounded in time; nothing here asserts a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import math
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
import orjson

from _serve import BIN, build_decks, main_thread_cpu, percentile, serving, spawned, verdict

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


ATTENTION_CASES = [  # name, Accept-Encoding, a new seed per request, extra body fields
    ("default, same seed (weights cached), identity", "identity", False, {}),
    ("default, same seed, as a browser asks", "gzip, deflate, br, zstd", False, {}),
    ("default, a new seed each request, identity", "identity", True, {}),
    ("the lab's three maps, same seed, as a browser asks", "gzip, deflate, br, zstd", False,
     {"include": ["scores", "masked", "weights"]}),
    ("every tensor, same seed, identity", "identity", False, {"include": EVERYTHING}),
]
ATTENTION_WARMUP = 30
ATTENTION_SAMPLES = 600


def post_timed(conn: http.client.HTTPConnection, body: bytes, encoding: str) -> tuple[float, int, int]:
    """One POST on a kept-alive connection: seconds from the request's first byte to the response's
    last, the status and the bytes on the wire. http.client adds far less than httpx per request, so
    the tail is the server's."""
    start = time.perf_counter()
    conn.request("POST", "/api/attention", body=body, headers={
        "Content-Type": "application/json", "Accept-Encoding": encoding})
    r = conn.getresponse()
    raw = r.read()
    return time.perf_counter() - start, r.status, len(raw)


def server_pid(port: int) -> int | None:
    """The process listening on loopback ``port`` (Linux: /proc), else None."""
    try:
        rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return None
    inodes = {f"socket:[{r.split()[9]}]" for r in rows
              if r.split()[1].endswith(f":{port:04X}") and r.split()[3] == "0A"}
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            if any(os.readlink(fd) in inodes for fd in fd_dir.iterdir()):
                return int(fd_dir.parent.name)
    return None


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU seconds of ``pid`` so far (every thread), or NaN."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def attention_table(url: str) -> None:
    build_decks(url, model=False)  # the timed requests then have the server's cores to themselves
    host, port = url.removeprefix("http://").split(":")
    pid = server_pid(int(port))
    print(f"## POST /api/attention: 64 tokens, d_model 512, 8 heads (one kept-alive client, sequential; "
          f"{ATTENTION_WARMUP} warm-up requests, then {ATTENTION_SAMPLES} timed)\n")
    print("The server's CPU time per request (its process, every thread, over the timed requests) is "
          "what the server costs whatever else the machine runs; the latencies add the waits for a core.\n")
    print("| case | response bytes | p50 | p95 | p99 | max | server CPU / request | target p99 < 20 ms |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        for name, encoding, new_seed, extra in ATTENTION_CASES:
            times, size, cpu = [], 0, math.nan
            for i in range(ATTENTION_WARMUP + ATTENTION_SAMPLES):
                if i == ATTENTION_WARMUP:
                    cpu = cpu_seconds(pid)
                body = orjson.dumps({**ATTENTION_BODY, **extra, "seed": 1000 + i if new_seed else 0})
                seconds, status, size = post_timed(conn, body, encoding)
                assert status == 200, status
                if i >= ATTENTION_WARMUP:
                    times.append(seconds)
            cpu = (cpu_seconds(pid) - cpu) / len(times)
            p99 = percentile(times, 99)
            target = verdict(p99 < ATTENTION_TARGET_P99) if not extra else "(not the target's case)"
            print(f"| {name} | {size:,} | {ms(percentile(times, 50))} | {ms(percentile(times, 95))} | "
                  f"{ms(p99)} | {ms(max(times))} | {ms(cpu)} | {target} |")
    finally:
        conn.close()
    print()


def attention_only(url: str | None) -> None:
    """``python benchmarks/server.py attention [URL]``: the attention table alone, on a new
    `attention-talk serve` or on the server already running at URL."""
    if url:
        attention_table(url)
        return
    with serving() as (url, _):
        attention_table(url)


def main() -> None:
    """Every table; ``server.py startup`` prints the start-up table alone, ``server.py attention [URL]``
    the attention table alone."""
    load1, load5, _ = os.getloadavg()
    busy = ": above the core count, expect noisy numbers" if load1 > (os.cpu_count() or 1) else ""
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{load1:.1f} / {load5:.1f} (1 / 5 min) before the run{busy}\n")
    if sys.argv[1:2] == ["attention"]:
        attention_only(sys.argv[2] if len(sys.argv) > 2 else None)
        return
    startup_table()
    if sys.argv[1:] != ["startup"]:
        frames_table()


if __name__ == "__main__":
    main()
