"""Memory of the workers with the real model loaded, and the model's load time (issue 33).

Two tables, printed, never asserted:

1. Loading the model in a fresh process: with the shared float32 cache present (the file mapped),
   with no cache folder (every tensor dequantised into the process), and the first load that builds
   the cache.
2. ``attention-talk serve`` with two workers (ATTENTION_TALK_WORKERS=2), once with a shared cache
   folder and once with none: each worker's RSS, PSS (shared pages divided among the processes that
   map them) and USS (pages only it holds), read from /proc/<pid>/smaps_rollup, after both workers
   have loaded the model and answered lab requests and chapter 3's frames. Target (issue 33):
   ≤ 300 MB per extra worker.

Run with ``make bench``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _serve import BIN, ROOT, spawned

TARGET_MB = 300
TEXTS = ["She walked along the river and sat down on the bank", "The capital of France is",
         "The cat sat on the mat because the cat was tired", "the old dog sleeps by the fire"]


def load_seconds(cache: str) -> float:
    """Seconds to load the model in a new process (``cache``: a folder, or 'none')."""
    code = ("import time; from attention_talk.model import Loader; from pathlib import Path; import sys\n"
            "ld = Loader(); ld.cache_dir = None if sys.argv[1] == 'none' else Path(sys.argv[1])\n"
            "t = time.perf_counter(); ld.model(); print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code, cache], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.strip())


def workers_of(pid: int) -> list[int]:
    """The server's worker processes (its children)."""
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) != pid:
                continue
            try:
                if b"resource_tracker" in (entry / "cmdline").read_bytes():  # multiprocessing's helper, not a worker
                    continue
            except OSError:
                continue
            kids.append(int(entry.name))
    return sorted(kids)


def memory(pid: int) -> dict[str, float]:
    """RSS, PSS and USS of a process, MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0]) / 1024
    return {"rss": fields["Rss"], "pss": fields["Pss"],
            "uss": fields["Private_Clean"] + fields["Private_Dirty"]}


def post(url: str, path: str, body: dict) -> None:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        r.read()


def get(url: str, path: str) -> None:
    with urllib.request.urlopen(url + path, timeout=300) as r:
        r.read()


def both_loaded(pids: list[int], timeout: float = 300) -> None:
    """Wait until every worker's resident memory has stopped growing (each loads the model at start)."""
    last, deadline = None, time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = [round(memory(p)["rss"]) for p in pids]
        if last is not None and now == last and min(now) > 300:
            return
        last = now
        time.sleep(3)


def serve_two(cache: str) -> list[dict[str, float]]:
    env = {"ATTENTION_TALK_WORKERS": "2", "ATTENTION_TALK_MODEL_CACHE_DIR": cache}
    with spawned([str(BIN / "attention-talk"), "serve"], env=env, timeout=120) as (url, _, proc):
        deadline = time.monotonic() + 60
        while len(workers_of(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        pids = workers_of(proc.pid)
        both_loaded(pids)
        for _ in range(3):  # requests land on either worker: each gets some
            for text in TEXTS:
                post(url, "/api/model/lab", {"text": text, "layer": 3, "head": 1})
            get(url, "/api/decks/real-heads")
            for slide in ("real-map", "jobs"):
                get(url, f"/api/decks/real-heads/slides/{slide}/frames")
        time.sleep(1)
        return [{"pid": p, **memory(p)} for p in pids]


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        subprocess.run([str(BIN / "attention-talk"), "model-cache"], check=True, cwd=ROOT, capture_output=True,
                       env={**os.environ, "ATTENTION_TALK_MODEL_CACHE_DIR": folder})
        build = time.perf_counter() - t0
        rows = [("cache present (float32, memory-mapped)", load_seconds(folder)),
                ("no cache folder (dequantised per process)", load_seconds("none")),
                ("`attention-talk model-cache`: first build, whole command", build)]
        print("\nModel load in a new process (target with the cache present: ≤ 1.5 s)")
        print(f"{'how':58} {'seconds':>8}")
        for how, s in rows:
            print(f"{how:58} {s:8.2f}")
        print(f"\nTwo workers with the model loaded, after lab requests and chapter 3's frames "
              f"(target: ≤ {TARGET_MB} MB per extra worker)")
        print(f"{'weights':36} {'worker':>7} {'RSS MB':>8} {'PSS MB':>8} {'USS MB':>8}")
        for label, cache in (("shared cache file (one copy)", folder), ("no cache (a copy per worker)", "none")):
            for i, m in enumerate(serve_two(cache)):
                print(f"{label if i == 0 else '':36} {i + 1:7d} {m['rss']:8.0f} {m['pss']:8.0f} {m['uss']:8.0f}")


if __name__ == "__main__":
    main()
