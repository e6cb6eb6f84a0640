"""Production behaviour: compression by Accept-Encoding, ETags and 304s that survive it, the body
limit, and the serve command's settings (graceful shutdown, access log)."""

from __future__ import annotations

import gzip

import brotli
import pytest
from fastapi.testclient import TestClient

from attention_talk.web import create_app
from attention_talk.web.settings import Settings

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
