"""Load generator for test_web_server: sixteen clients at once, each posting the worst requests the
attention API can be sent (64 tokens, d_model 512, heads × d_k = 4096, 15 digits, the largest
include, Accept-Encoding: br), twice, each with a new seed (no cache helps). Run in its own process
so the test's /healthz poller shares no interpreter lock with it:

    python tests/heavy_load.py http://127.0.0.1:PORT   →   one JSON line: [[status, retry_after, bytes, seconds], …]

A status of 0 is a request that did not finish within TIMEOUT seconds (a stall)."""

from __future__ import annotations

import json
import sys
import threading
import time

import httpx

CLIENTS, ROUNDS, TIMEOUT = 16, 2, 60.0
EVERYTHING = ["q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]


def body(i: int) -> dict:
    """The worst cases, in turn: everything (refused: too large), then the largest that fit."""
    base = {"tokens": [f"w{j}" for j in range(64)], "d_model": 512, "digits": 15, "seed": 1000 + i,
            "causal": False, "temperature": 0.5}
    return [{**base, "heads": 64, "d_k": 64, "include": EVERYTHING},
            {**base, "heads": 8, "d_k": 512, "include": ["q", "final"]},
            {**base, "heads": 8, "d_k": 512, "include": ["scores", "masked", "weights", "final"]},
            {**base, "heads": 64, "d_k": 64, "include": ["output", "final"]}][i % 4]


def main(url: str) -> None:
    results: list[list] = []

    def client(i: int) -> None:
        with httpx.Client(base_url=url, timeout=TIMEOUT, headers={"accept-encoding": "br"}) as c:
            for r in range(ROUNDS):
                start = time.perf_counter()
                try:
                    with c.stream("POST", "/api/attention", json=body(i + CLIENTS * r)) as resp:
                        size = sum(len(chunk) for chunk in resp.iter_raw())
                        results.append([resp.status_code, resp.headers.get("retry-after"), size,
                                        round(time.perf_counter() - start, 3)])
                except httpx.TimeoutException:
                    results.append([0, None, 0, round(time.perf_counter() - start, 3)])

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps(results))


if __name__ == "__main__":
    main(sys.argv[1])
