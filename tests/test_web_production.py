"""Production behaviour: compression by Accept-Encoding, ETags and 304s that survive it, the body
limit, and the serve command's settings (graceful shutdown, access log)."""

from __future__ import annotations

import gzip
import re
import struct

import brotli
import pytest
from fastapi.testclient import TestClient

from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from fresh_loop import run_anyio

DECK = "attention-step-by-step"
FRAMES = f"/api/decks/{DECK}/slides/attention-map/frames"
DECODE = {"gzip": gzip.decompress, "br": brotli.decompress}


def raw(client, url: str, **headers) -> tuple:
    """Status, headers and the body exactly as sent (httpx would decode it)."""
    with client.stream("GET", url, headers=headers) as r:
        return r.status_code, r.headers, b"".join(r.iter_raw())


@pytest.mark.parametrize("url", ["/", f"/talk/{DECK}", "/static/js/player.js", "/static/css/talk.css",
                                 "/openapi.json", FRAMES])
@pytest.mark.parametrize("coding", ["gzip", "br"])
def test_text_responses_are_compressed(client, url, coding) -> None:
    plain_status, _, plain = raw(client, url, **{"accept-encoding": "identity"})
    status, headers, body = raw(client, url, **{"accept-encoding": coding})
    assert plain_status == status == 200
    assert headers["content-encoding"] == coding
    assert "accept-encoding" in headers["vary"].lower()
    assert DECODE[coding](body) == plain and len(body) < len(plain)


def test_brotli_preferred_when_both_accepted(client) -> None:
    assert raw(client, FRAMES, **{"accept-encoding": "gzip, deflate, br"})[1]["content-encoding"] == "br"
    assert raw(client, FRAMES, **{"accept-encoding": "gzip, br;q=0"})[1]["content-encoding"] == "gzip"
    assert "content-encoding" not in raw(client, FRAMES, **{"accept-encoding": "identity"})[1]


@pytest.mark.parametrize("url", [FRAMES, f"/api/decks/{DECK}", "/static/js/player.js", "/static/css/talk.css"])
@pytest.mark.parametrize("coding", ["identity", "gzip", "br"])
def test_etag_and_304_with_and_without_compression(client, url, coding) -> None:
    status, headers, _ = raw(client, url, **{"accept-encoding": coding})
    etag = headers["etag"]
    assert status == 200
    # Strong for the exact identity bytes, weak once compressed (other bytes, same content).
    assert etag.startswith("W/") == ("content-encoding" in headers)
    for sent in {etag, etag.removeprefix("W/"), "W/" + etag.removeprefix("W/")}:
        again, again_headers, body = raw(client, url, **{"accept-encoding": coding, "if-none-match": sent})
        assert again == 304 and body == b"", sent
        assert again_headers["etag"].removeprefix("W/") == etag.removeprefix("W/")
    assert raw(client, url, **{"accept-encoding": coding, "if-none-match": '"other"'})[0] == 200


@pytest.mark.parametrize("url", ["/static/js/player.js", "/static/css/talk.css", "/static/js/views/matrix.js"])
def test_static_files_are_revalidated_every_time(client, url) -> None:
    """The player's files carry no version in their names: a browser must ask again (no-cache)
    and get a 304 while the file is unchanged, never reuse it on a guess (modules of two versions)."""
    status, headers, _ = raw(client, url, **{"accept-encoding": "identity"})
    assert status == 200 and headers["cache-control"] == "no-cache"
    again, again_headers, _ = raw(client, url, **{"accept-encoding": "identity", "if-none-match": headers["etag"]})
    assert again == 304 and again_headers["cache-control"] == "no-cache"


@pytest.mark.parametrize("page", ["/talk/attention-step-by-step", "/docs", "/lab"])
def test_the_icons_are_raster_and_kept_for_a_day(client, page) -> None:
    """The browser asks for the page's icon again on every URL change (every step): from its cache,
    not from the server, and as a PNG. An SVG icon is parsed as a whole document each time, which
    Chromium does on the main thread, inside the key's frame. It does not depend on the code's version."""
    icons = re.findall(r'<link rel="icon" href="([^"]+)"[^>]*type="([^"]+)"', client.get(page).text)
    assert len(icons) == 2 and {t for _, t in icons} == {"image/png"}
    for href, _ in icons:
        status, headers, body = raw(client, href, **{"accept-encoding": "identity"})
        assert status == 200 and headers["cache-control"] == "public, max-age=86400"
        assert headers["content-type"] == "image/png" and body.startswith(b"\x89PNG\r\n\x1a\n")
        size = int(href.rsplit("-", 1)[1].removesuffix(".png"))  # favicon-32.png is 32×32
        assert struct.unpack(">II", body[16:24]) == (size, size)


def test_other_encodings_share_one_validator(client) -> None:
    """A 304 for a br ETag when the client now asks for gzip: same content, so still not modified."""
    _, headers, _ = raw(client, FRAMES, **{"accept-encoding": "br"})
    assert raw(client, FRAMES, **{"accept-encoding": "gzip", "if-none-match": headers["etag"]})[0] == 304


def test_body_limit_is_a_setting(store) -> None:
    small = TestClient(create_app(Settings(max_body_bytes=1024), store=store))
    r = small.post("/api/attention", content=b'{"tokens": ["a"]}' + b" " * 2000,
                   headers={"content-type": "application/json"})
    assert r.status_code == 413 and "1024 bytes" in r.json()["message"]
    assert small.post("/api/attention", json={"tokens": ["a"]}).status_code == 200


def test_serve_passes_production_settings_to_uvicorn(monkeypatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from attention_talk.cli import app

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: seen.update(kw))
    monkeypatch.setenv("ATTENTION_TALK_WORKERS", "3")
    monkeypatch.setenv("ATTENTION_TALK_SHUTDOWN_TIMEOUT", "4")
    monkeypatch.setenv("ATTENTION_TALK_ACCESS_LOG", "false")
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code == 0, result.output
    assert seen["host"] == "0.0.0.0" and seen["workers"] == 3
    assert seen["timeout_graceful_shutdown"] == 4 and seen["access_log"] is False


def test_serve_bounds_slow_and_greedy_clients(monkeypatch) -> None:
    """h11 (httptools has no header limit), the header limit, the connection cap, from the settings."""
    import uvicorn
    from typer.testing import CliRunner

    from attention_talk.cli import app
    from attention_talk.web.server import PROTOCOL

    seen: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda *a, **kw: seen.update(kw))
    monkeypatch.setenv("ATTENTION_TALK_MAX_HEADER_BYTES", "8192")
    monkeypatch.setenv("ATTENTION_TALK_LIMIT_CONCURRENCY", "50")
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0
    assert seen["http"] == PROTOCOL and seen["h11_max_incomplete_event_size"] == 8192
    assert seen["limit_concurrency"] == 50


def on_event_loop() -> bool:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@pytest.fixture()
def compressions(monkeypatch) -> list[tuple[str, bool]]:
    """Every fast compression: (coding, whether it ran on the event loop)."""
    from attention_talk.web import compression

    seen: list[tuple[str, bool]] = []
    for coding, encode in list(compression.FAST.items()):
        def spy(body: bytes, coding=coding, encode=encode) -> bytes:
            seen.append((coding, on_event_loop()))
            return encode(body)
        monkeypatch.setitem(compression.FAST, coding, spy)
    return seen


@pytest.fixture(scope="module")
def big_page_client(store):
    """The app plus a route whose HTML body is larger than OFFLOAD_SIZE."""
    from fastapi.responses import HTMLResponse

    from attention_talk.web.compression import OFFLOAD_SIZE

    app = create_app(store=store)
    page = "".join(f"<p>line {i}</p>\n" for i in range(OFFLOAD_SIZE // 10))

    @app.get("/big", response_class=HTMLResponse)
    async def big() -> str:
        return page

    return TestClient(app)


@pytest.mark.parametrize("coding", ["zstd", "br", "gzip"])
def test_large_bodies_are_compressed_off_the_event_loop(big_page_client, compressions, coding) -> None:
    """A body over OFFLOAD_SIZE is compressed in a worker thread; a small one by starlette-compress
    as before."""
    import zstandard

    from attention_talk.web.compression import OFFLOAD_SIZE

    plain = raw(big_page_client, "/big", **{"accept-encoding": "identity"})[2]
    assert len(plain) >= OFFLOAD_SIZE
    status, headers, body = raw(big_page_client, "/big", **{"accept-encoding": coding})
    assert status == 200 and headers["content-encoding"] == coding and compressions == [(coding, False)]
    assert headers["content-length"] == str(len(body)) and "accept-encoding" in headers["vary"].lower()
    decode = {**DECODE, "zstd": lambda b: zstandard.ZstdDecompressor().decompress(b)}[coding]
    assert decode(body) == plain
    raw(big_page_client, "/", **{"accept-encoding": coding})
    assert len(compressions) == 1  # small: not offloaded


def test_attention_is_computed_and_compressed_in_a_worker_thread(client, compressions) -> None:
    import orjson

    status, headers, body = raw_post(client, "/api/attention", {"tokens": ["a"] * 64, "d_model": 512, "heads": 8},
                                     **{"accept-encoding": "gzip, deflate, br"})
    assert status == 200 and headers["content-encoding"] == "br" and compressions == [("br", False)]
    assert orjson.loads(brotli.decompress(body))["include"] == ["weights"]
    status, headers, body = raw_post(client, "/api/attention", {"tokens": ["a"]}, **{"accept-encoding": "identity"})
    assert status == 200 and "content-encoding" not in headers and orjson.loads(body)["tokens"] == ["a"]


def raw_post(client, url: str, body: dict, **headers) -> tuple:
    with client.stream("POST", url, json=body, headers=headers) as r:
        return r.status_code, r.headers, b"".join(r.iter_raw())


def test_worst_case_attention_response_is_bounded(client) -> None:
    """The largest request that passes (every field at its maximum, 15 digits, the largest include
    under the cap) stays under 7 MB; the hostile tester's 35.6 MB one is a 422."""
    from attention_talk.lab.sizes import response_numbers

    big = {"tokens": [f"w{i}" for i in range(64)], "d_model": 512, "digits": 15, "seed": 5}
    everything = ["q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]
    r = client.post("/api/attention", json={**big, "heads": 64, "d_k": 64, "include": everything})
    assert r.status_code == 422 and "reduce" in r.json()["message"] and len(r.content) < 1000
    fits = {**big, "heads": 8, "d_k": 512, "include": ["q", "final"]}
    numbers = response_numbers(64, d_model=512, heads=8, d_k=512, include=fits["include"])
    assert numbers <= Settings().max_response_numbers
    status, _, body = raw_post(client, "/api/attention", fits, **{"accept-encoding": "identity"})
    assert status == 200 and len(body) < 7_000_000


def test_the_response_cap_is_a_setting(store) -> None:
    small = TestClient(create_app(Settings(max_response_numbers=1_000), store=store))
    r = small.post("/api/attention", json={"tokens": ["a"] * 20, "d_model": 64, "heads": 2,
                                           "include": ["scores", "masked", "weights", "final"]})
    assert r.status_code == 422
    assert r.json()["detail"]["reduce"] == ["tokens", "heads", "d_model", "include"]
    assert "limit of 1,000" in r.json()["message"]
    ok = small.post("/api/attention", json={"tokens": ["a"] * 20, "d_model": 64, "heads": 2, "include": ["weights"]})
    assert ok.status_code == 200


def test_busy_attention_gets_503_with_retry_after(store, monkeypatch) -> None:
    """One slot, a short wait: while one request computes, the next one gets a JSON 503 saying why."""
    import threading
    import time

    from attention_talk.web.routes import api

    real = api.attention_body
    monkeypatch.setattr(api, "attention_body", lambda *a: (time.sleep(1.0), real(*a))[1])
    app = create_app(Settings(attention_concurrency=1, attention_queue_timeout=0.2), store=store)
    with TestClient(app) as c:
        first: list = []
        worker = threading.Thread(target=lambda: first.append(c.post("/api/attention", json={"tokens": ["a"]})))
        worker.start()
        time.sleep(0.4)
        busy = c.post("/api/attention", json={"tokens": ["b"]})
        health = c.get("/healthz")
        worker.join()
    assert first[0].status_code == 200 and health.status_code == 200
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
    assert busy.json()["message"].startswith("busy: all 1 slots for POST /api/attention")


async def never(*_args) -> dict:
    import anyio

    await anyio.sleep_forever()
    return {}


def test_a_slow_body_gets_408() -> None:
    """The body limit's timeout, on the ASGI level (the real socket: test_web_server)."""
    import anyio

    from attention_talk.web.limits import BodyLimit

    sent: list[dict] = []

    async def app(scope, receive, send) -> None:
        await receive()

    async def run() -> None:
        limit = BodyLimit(app, max_bytes=1024, timeout=0.2)
        scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"content-length", b"10")]}
        with anyio.fail_after(5):
            await limit(scope, never, sent.append)

    with pytest.raises(Exception) as caught:  # the HTTPException the app's handler turns into JSON
        run_anyio(run)
    assert caught.value.status_code == 408 and "within 0.2 s" in caught.value.detail
    assert caught.value.headers == {"Connection": "close"}


def test_a_gate_with_no_wait_still_admits_while_a_slot_is_free() -> None:

    from attention_talk.web.limits import Gate

    async def run() -> list[int]:
        gate, got = Gate(1, 0.0, "work"), []
        async with gate.slot():
            got.append(1)
            with pytest.raises(Exception) as busy:
                async with gate.slot():
                    got.append(2)
            got.append(busy.value.status_code)
        async with gate.slot():
            got.append(3)
        return got

    assert run_anyio(run) == [1, 503, 3]


def test_the_weights_cache_is_bounded_in_bytes() -> None:
    """A new seed per request cannot grow memory: recent weights are kept up to a byte budget."""
    from attention_talk.lab import chain

    for seed in range(10_000, 10_012):  # 12 × 8 MB of weights drawn
        w = chain.projections(512, 8, 64, seed)
    assert chain.projections(512, 8, 64, seed) is w  # the latest is kept
    kept = sum(w.nbytes for w in chain._projections.values())  # the four matrices, drawn or not
    assert 0 < kept <= chain.PROJECTION_CACHE_BYTES


# ---------------------------------------------------------------------------------------------
# HTML pages: revalidated on every visit (no-cache, an ETag, 304), a Permissions-Policy


def html_pages(client) -> list[str]:
    """Every HTML page the server answers, a room's two pages included (a room made for the test)."""
    code = client.post("/api/rooms", json={"deck": DECK}).json()["code"]
    return ["/", f"/talk/{DECK}", f"/talk/{DECK}?embed=1", f"/talk/{DECK}/presenter", f"/talk/{DECK}/print",
            f"/talk/{DECK}/print?notes=1", "/lab", "/docs", f"/join/{code}", f"/remote/{code}"]


def test_every_html_route_is_among_the_pages_checked(app, client) -> None:
    """A new HTML route must join html_pages: the routes that answer HTML, by their declared class."""
    from fastapi.responses import HTMLResponse
    from fastapi.routing import APIRoute

    from shared_app import all_routes

    declared = {path for path, route in all_routes(app)
                if isinstance(route, APIRoute) and "GET" in route.methods and route.response_class is HTMLResponse}
    checked = {re.sub(r"/[0-9A-Z]{9}$", "/*", url.split("?")[0].replace(DECK, "*")) for url in html_pages(client)}
    assert {re.sub(r"\{[^}]+\}", "*", path) for path in declared} == checked


@pytest.mark.parametrize("coding", ["identity", "br"])
def test_html_pages_are_revalidated_with_an_etag_and_304(client, coding) -> None:
    """A page reflects its deck's words: the browser must ask each time (no-cache), and an unchanged
    page costs a body-less 304, with or without compression, for GET and HEAD."""
    for url in html_pages(client):
        status, headers, _ = raw(client, url, **{"accept-encoding": coding})
        assert status == 200 and headers["content-type"].startswith("text/html"), url
        assert headers["cache-control"] == "no-cache", url
        etag = headers["etag"]
        assert re.fullmatch(r'(W/)?"[0-9a-f]{32}"', etag) and etag.startswith("W/") == (coding != "identity"), url
        for sent in (etag, etag.removeprefix("W/"), f'"other", {etag}', "*"):
            again, again_headers, again_body = raw(client, url, **{"accept-encoding": coding, "if-none-match": sent})
            assert again == 304 and again_body == b"", (url, sent)
            assert again_headers["etag"].removeprefix("W/") == etag.removeprefix("W/")
            assert again_headers["cache-control"] == "no-cache"
        head = client.head(url, headers={"accept-encoding": coding, "if-none-match": etag})
        assert head.status_code == 304, url
        assert raw(client, url, **{"accept-encoding": coding, "if-none-match": '"other"'})[0] == 200


def test_an_edited_deck_changes_its_pages_etag(tmp_path) -> None:
    """The ETag is the page's bytes: a deck whose caption was edited (and the server restarted)
    answers 200 with the new words to the old ETag."""
    from pathlib import Path

    from attention_talk.web.store import Store

    source = (Path(__file__).parents[1] / "docs" / "example-deck.yaml").read_text()
    url = "/talk/example-deck"
    seen = []
    for caption in ("One word, {focus}, and what it reads.", "One word, {focus}, and whom it reads."):
        (tmp_path / "example-deck.yaml").write_text(source.replace("One word, {focus}, and what it reads.", caption))
        client = TestClient(create_app(store=Store.load(tmp_path)))
        held = {"if-none-match": seen[-1][0]} if seen else {}
        r = client.get(url, headers={"accept-encoding": "identity", **held})
        assert r.status_code == 200
        seen.append((r.headers["etag"], caption.replace("{focus}", "dog") in r.text))
    assert seen[0][0] != seen[1][0] and seen[0][1] and seen[1][1]


def test_the_unavailable_page_is_not_kept(tmp_path) -> None:
    """The 503 page (a deck waiting for a missing model) is HTML too: no-cache, and no ETag, so no
    browser answers itself with a 304 once the model is installed."""
    app = create_app(Settings(model_path=tmp_path / "missing.gguf", model_preload=False))
    with TestClient(app) as client:
        r = client.get("/talk/real-heads", headers={"accept-encoding": "identity"})
        assert r.status_code == 503 and r.headers["content-type"].startswith("text/html")
        assert r.headers["cache-control"] == "no-cache" and "etag" not in r.headers
        assert "permissions-policy" in r.headers


def permissions(header: str) -> dict[str, str]:
    return dict(item.strip().split("=", 1) for item in header.split(","))


@pytest.mark.parametrize("frame_ancestors", ["'self'", "https://course.example.org"])
def test_html_pages_deny_every_browser_feature_but_full_screen(store, frame_ancestors) -> None:
    """F asks for full screen, in its own window or embedded (?embed=1, where the embedding page
    grants it with allow="fullscreen" on top): this origin may; camera, microphone, geolocation
    and the rest are refused to the page and to anything it would frame."""
    client = TestClient(create_app(Settings(frame_ancestors=frame_ancestors), store=store))
    for url in html_pages(client):
        policy = permissions(client.get(url).headers["permissions-policy"])
        assert policy.pop("fullscreen") == "(self)", url
        assert {"camera", "microphone", "geolocation", "payment", "usb", "clipboard-read"} <= set(policy), url
        assert set(policy.values()) == {"()"}, url
