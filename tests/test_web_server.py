"""The real server (``attention-talk serve`` in a subprocess, served.py): heavy requests never stall
it, slow or oversized clients are cut off, HEAD and redirects over the wire, room sockets and
silent connections never take HTTP's capacity, the Host header makes no link and lets no socket in,
and no client writes an ERROR line into the log. The wire-level bad
input table is in test_web_bad_input.py (``WIRE``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from fresh_loop import run
from served import ENV, connect, read_response, send_all, serve

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


# ---------------------------------------------------------------------------------------------
# HTTP's capacity and the room sockets' bounds, apart (ATTENTION_TALK_LIMIT_CONCURRENCY: requests in
# progress only), and a log no client can write an ERROR into

LIMITED = {"ATTENTION_TALK_LIMIT_CONCURRENCY": "50", "ATTENTION_TALK_HEADER_TIMEOUT": "60",
           "ATTENTION_TALK_BODY_TIMEOUT": "60", "ATTENTION_TALK_LOG_LEVEL": "info",
           "ATTENTION_TALK_MODEL_PRELOAD": "false"}
FOLLOWER = '{"type": "hello", "role": "follower"}'


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """A server allowing 50 HTTP requests in progress, with long head and body timeouts (a silent
    connection stays open for the whole test), and its log."""
    log = tmp_path_factory.mktemp("limited") / "server.log"
    with serve(LIMITED, log=log) as url:
        yield url, log


def new_room(url: str, **headers: str) -> dict:
    r = httpx.post(f"{url}/api/rooms", json={"deck": DECK}, headers=headers, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()


def ws_url(url: str, code: str) -> str:
    return f"{url.replace('http://', 'ws://')}/ws/rooms/{code}"


async def http_answers(url: str) -> dict[str, int]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        return {"/healthz": (await c.get("/healthz")).status_code,
                f"/talk/{DECK}": (await c.get(f"/talk/{DECK}")).status_code,
                f"/api/decks/{DECK}/slides/attention-map/frames": (
                    await c.get(f"/api/decks/{DECK}/slides/attention-map/frames")).status_code,
                "POST /api/rooms": (await c.post("/api/rooms", json={"deck": DECK})).status_code}


def test_80_follower_sockets_leave_http_its_capacity(limited) -> None:
    """With ATTENTION_TALK_LIMIT_CONCURRENCY=50 and 80 followers in a room, every visitor is still
    served: the health check, the talk, its frames, and a new room (uvicorn counted the sockets as
    connections and answered them all 503)."""
    url, _ = limited
    room = new_room(url)

    async def scenario() -> tuple[list[int], dict[str, int]]:
        async with contextlib.AsyncExitStack() as stack:
            followers = [await stack.enter_async_context(ws_connect(ws_url(url, room["code"]), origin=url))
                         for _ in range(80)]
            for ws in followers:
                await ws.send(FOLLOWER)
            counts = [json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] == "state" for ws in followers]
            return counts, await http_answers(url)

    states, answers = run(scenario())
    assert states == [True] * 80
    assert answers == {"/healthz": 200, f"/talk/{DECK}": 200, f"/api/decks/{DECK}/slides/attention-map/frames": 200,
                       "POST /api/rooms": 201}


def test_silent_and_half_sent_connections_hold_no_http_capacity(limited) -> None:
    """80 connections that say nothing and 20 that stop halfway through a head, with a 60 s header
    timeout: none is a request in progress, so HTTP keeps its 50 (uvicorn turned everyone away until
    the silent ones were closed)."""
    url, _ = limited
    held = [connect(url) for _ in range(80)]
    try:
        for _ in range(20):
            held.append(connect(url))
            send_all(held[-1], b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        answers = run(http_answers(url))
    finally:
        for s in held:
            s.close()
    assert set(answers.values()) <= {200, 201}, answers


def test_requests_in_progress_beyond_the_limit_get_a_json_503(limited) -> None:
    """50 requests whose bodies stall are 50 requests in progress: the next one gets a JSON 503 with
    Retry-After naming the setting; once they are gone, 200 again."""
    url, _ = limited
    stalled = []
    try:
        for _ in range(50):
            stalled.append(connect(url))
            send_all(stalled[-1], b"POST /api/attention HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                  b"Content-Length: 100\r\n\r\n{\"tokens\": [")
        busy = until(lambda: (r := httpx.get(f"{url}/healthz", timeout=30)).status_code == 503 and r)
    finally:
        for s in stalled:
            s.close()
    assert busy.headers["retry-after"] == "1" and busy.headers["content-type"] == "application/json"
    assert "50 requests are in progress" in busy.json()["message"]
    assert "ATTENTION_TALK_LIMIT_CONCURRENCY" in busy.json()["message"]
    assert until(lambda: httpx.get(f"{url}/healthz", timeout=30).status_code == 200)


def until(check, ceiling: float = 30):
    """The first truthy result of ``check()``, polled until ``ceiling`` seconds have passed."""
    deadline = time.monotonic() + ceiling
    while not (result := check()):
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)
    return result


def handshake(url: str, code: str, headers: bytes) -> bytes:
    """A raw WebSocket handshake with exactly these headers (Host included); the status line."""
    with connect(url) as s:
        send_all(s, f"GET /ws/rooms/{code} HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n".encode()
                 + headers + b"\r\n")
        data = b""
        while b"\r\n" not in data and (chunk := s.recv(4096)):
            data += chunk
    return data.split(b"\r\n", 1)[0]


def test_links_and_the_origin_check_never_trust_the_host_header(limited) -> None:
    """A forged Host never makes a link that carries the secret, and a forged Host with a matching
    Origin (what a DNS-rebinding page sends) is refused; this server's own address and port, under
    any loopback name, are its own."""
    url, _ = limited
    port = url.rsplit(":", 1)[1]
    for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}"):
        room = new_room(url, host=host)
        assert room["remote_url"].startswith(f"{url}/remote/{room['code']}#secret="), room
        assert room["join_url"] == f"{url}/join/{room['code']}", room
    local = new_room(url, host=f"localhost:{port}")
    assert local["join_url"] == f"http://localhost:{port}/join/{local['code']}"
    code = local["code"]
    for host in ("evil.example", f"evil.example:{port}"):
        assert handshake(url, code, f"Host: {host}\r\nOrigin: http://{host}\r\n".encode()) == \
            b"HTTP/1.1 403 Forbidden", host
    for origin in (url, f"http://localhost:{port}", f"http://[::1]:{port}"):
        assert handshake(url, code, f"Host: evil.example\r\nOrigin: {origin}\r\n".encode()) == \
            b"HTTP/1.1 101 Switching Protocols", origin
    assert handshake(url, code, f"Host: x\r\nOrigin: http://localhost:{int(port) + 1}\r\n".encode()) == \
        b"HTTP/1.1 403 Forbidden"


def test_no_client_writes_an_error_line_and_every_frame_counts(limited) -> None:
    """Text that is not UTF-8 (whole or in fragments) closes with 1007, a ping flood and a message in
    100 fragments close with 4429 after the error message, a foreign Origin gets 403; the server's
    log has no ERROR line and no traceback for any of them (uvicorn logged both)."""
    url, log = limited
    room = new_room(url)
    target = ws_url(url, room["code"])

    async def closed_with(send) -> tuple[int | None, list]:
        async with ws_connect(target, origin=url) as ws:
            await ws.send(FOLLOWER)
            received = [json.loads(await ws.recv())["type"]]
            with contextlib.suppress(ConnectionClosed):
                await send(ws)
                while True:
                    received.append(json.loads(await asyncio.wait_for(ws.recv(), 30))["type"])
            return ws.close_code, received

    async def pings(ws) -> None:
        for _ in range(100):
            await ws.ping()

    async def scenario() -> list:
        return [await closed_with(lambda ws: ws.send(b"\xff\xfe", text=True)),
                await closed_with(lambda ws: ws.send([b'{"type": "', b"\xc3"], text=True)),
                await closed_with(pings),
                await closed_with(lambda ws: ws.send(["x"] * 100))]

    results = run(scenario())
    assert [code for code, _ in results] == [1007, 1007, 4429, 4429], results
    assert all(received[-1] == "error" for _, received in results[2:]), results  # the app's error, then 4429
    assert handshake(url, room["code"], b"Host: x\r\nOrigin: https://evil.example\r\n") == b"HTTP/1.1 403 Forbidden"
    text = until(lambda: (t := log.read_text()) and "WebSocket text that is not UTF-8" in t and t)
    assert "ERROR" not in text and "Traceback" not in text, text[-3000:]
