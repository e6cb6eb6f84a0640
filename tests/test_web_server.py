"""The real server (``attention-talk serve`` in a subprocess, served.py): heavy requests never stall
it, slow or oversized clients are cut off, HEAD and redirects over the wire. The wire-level bad
input table is in test_web_bad_input.py (``WIRE``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx

from served import ENV, connect, read_response, send_all

HERE = Path(__file__).parent
DECK = "attention-step-by-step"


def test_heavy_requests_never_stall_the_server(served) -> None:
    """Sixteen clients post the worst requests at once (heavy_load.py, its own process) while
    /healthz is polled: every health answer comes in under a second; every heavy answer is a 200,
    a 422 (too large) or a 503 with Retry-After (busy), and none stalls."""
    health: list[float] = []
    with httpx.Client(base_url=served, timeout=30) as c:
        load = subprocess.Popen([sys.executable, str(HERE / "heavy_load.py"), served], stdout=subprocess.PIPE,
                                text=True)
        try:
            while load.poll() is None:
                start = time.perf_counter()
                assert c.get("/healthz").status_code == 200
                health.append(time.perf_counter() - start)
                time.sleep(0.05)
            out, _ = load.communicate(timeout=10)
        finally:
            load.kill()
    results = json.loads(out)
    statuses = Counter(status for status, *_ in results)
    print(f"health: {len(health)} answers, slowest {max(health):.3f} s; heavy: {dict(statuses)}; "
          f"largest body {max(size for *_, size, _ in results):,} bytes (br)")
    assert len(results) == 32 and statuses[0] == 0, results  # 0: no answer within the client's timeout
    assert set(statuses) <= {200, 422, 503} and statuses[200] >= 1 and statuses[422] >= 1, statuses
    assert all(retry == "1" for status, retry, *_ in results if status == 503)
    assert len(health) >= 5 and max(health) < 1.0, sorted(health)[-5:]


def test_a_64_kib_header_is_refused(served) -> None:
    for size in (64 * 1024, 8 * 1024 * 1024):  # one read, and many reads (the parser's own limit)
        with connect(served) as s:
            send_all(s, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n")
            status, data = read_response(s)
        assert status == 431, data[:200]
        assert b"larger than the limit of 16384 bytes" in data


def test_a_stalled_body_gets_408_within_the_timeout(served) -> None:
    timeout = float(ENV["ATTENTION_TALK_BODY_TIMEOUT"])
    with connect(served) as s:
        start = time.monotonic()
        send_all(s, b"POST /api/attention HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100\r\n\r\n{\"tokens\": [")
        status, data = read_response(s)  # read until the server closes
        took = time.monotonic() - start
    assert status == 408 and b"body: not received in full within 1.5 s" in data
    assert timeout <= took < timeout + 3, took


def test_a_stalled_head_gets_408_and_a_silent_connection_is_closed(served) -> None:
    timeout = float(ENV["ATTENTION_TALK_HEADER_TIMEOUT"])
    for sent, expected in [(b"GET /healthz HTTP/1.1\r\nHost: x\r\n", 408), (b"", None)]:
        start = time.monotonic()  # before connecting: the server's clock starts when it accepts
        with connect(served) as s:
            send_all(s, sent)
            status, _ = read_response(s)
            took = time.monotonic() - start
        assert status == expected and timeout <= took < timeout + 3, (sent, status, took)
    # and on a kept-alive connection, for the second request's head
    with connect(served) as s:
        send_all(s, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        first = b""
        while not first.endswith(b'{"status":"ok"}'):
            first += s.recv(65536)
        start = time.monotonic()
        send_all(s, b"GET /healthz HTTP/1.1\r\n")
        status, _ = read_response(s)
        took = time.monotonic() - start
    assert first.startswith(b"HTTP/1.1 200") and status == 408 and took < timeout + 3


def test_head_and_relative_redirects_over_the_wire(served) -> None:
    with connect(served) as s:
        send_all(s, b"HEAD /api/decks HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, data = read_response(s)
    head, _, body = data.partition(b"\r\n\r\n")
    assert status == 200 and body == b"" and b"content-length: " in head.lower()
    for path, location in [(b"/api/decks/", b"/api/decks"), (b"/api/decks/?a=1", b"/api/decks?a=1"),
                           (b"//evil.example/", None), (b"/\\evil.example/", None), (b"//healthz/", None)]:
        with connect(served) as s:
            send_all(s, b"GET " + path + b" HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
            status, data = read_response(s)
        lines = data.partition(b"\r\n\r\n")[0].lower().split(b"\r\n")
        found = [line.split(b": ", 1)[1] for line in lines if line.startswith(b"location: ")]
        assert b"evil" not in b"".join(found), data[:300]
        if location is not None:
            assert status == 307 and found == [location], data[:300]
        else:
            assert status == 404 and found == [], data[:300]


def test_connections_beyond_the_limit_get_503() -> None:
    """ATTENTION_TALK_LIMIT_CONCURRENCY: with 3 connections open, uvicorn answers the next request 503
    (the open ones count; a connection that says nothing is closed after the header timeout)."""
    from served import serve

    with serve({"ATTENTION_TALK_LIMIT_CONCURRENCY": "3", "ATTENTION_TALK_HEADER_TIMEOUT": "30"}) as url:
        idle = [connect(url) for _ in range(3)]
        try:
            with connect(url) as s:
                send_all(s, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                status, _ = read_response(s)
        finally:
            for s in idle:
                s.close()
        assert status == 503
        time.sleep(0.5)  # the server sees the idle connections close
        assert httpx.get(f"{url}/healthz").status_code == 200
