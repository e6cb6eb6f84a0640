"""The HTTP API: every route, 404s, 422s that name the field, ETag/304, security headers."""

from __future__ import annotations

import math

import pytest
from fastapi import Request

DECK = "attention-step-by-step"


def test_healthz(client) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


def test_security_headers_on_every_response(client) -> None:
    for url in ["/", f"/talk/{DECK}", "/api/decks", "/static/css/talk.css", "/nope"]:
        h = client.get(url).headers
        csp = h["content-security-policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
        assert "frame-ancestors 'self'" in csp
        assert h["x-content-type-options"] == "nosniff"
        assert h["referrer-policy"] == "no-referrer"


def test_index_and_talk_pages(client) -> None:
    r = client.get("/")
    assert r.status_code == 200 and f'href="/talk/{DECK}"' in r.text
    r = client.get(f"/talk/{DECK}")
    assert r.status_code == 200
    assert f'data-deck="{DECK}"' in r.text and 'data-step="1"' in r.text
    assert 'aria-live="polite"' in r.text
    # Every caption and narration is on the page without JavaScript.
    deck = client.get(f"/api/decks/{DECK}").json()
    for slide in deck["slides"]:
        assert f'id="slide-{slide["id"]}"' in r.text
        for caption in slide["captions"]:
            assert caption.replace("'", "&#39;").replace('"', "&#34;") in r.text or caption in r.text
    assert "<script>" not in r.text  # no inline scripts


def test_decks_list_and_manifest(client) -> None:
    decks = client.get("/api/decks").json()
    assert any(d["id"] == DECK for d in decks)
    m = client.get(f"/api/decks/{DECK}").json()
    assert m["id"] == DECK and m["steps"] == sum(s["steps"] for s in m["slides"])
    assert [s["number"] for s in m["slides"]] == list(range(1, len(m["slides"]) + 1))


def test_frames_etag_and_304(client) -> None:
    r = client.get(f"/api/decks/{DECK}/slides/attention-map/frames")
    assert r.status_code == 200
    data = r.json()
    assert data["slide"] == "attention-map" and len(data["frames"]) == 7
    etag = r.headers["etag"]
    assert "max-age" in r.headers["cache-control"]
    again = client.get(f"/api/decks/{DECK}/slides/attention-map/frames", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b""
    other = client.get(f"/api/decks/{DECK}/slides/attention-map/frames", headers={"If-None-Match": '"x"'})
    assert other.status_code == 200


def test_one_step_s_frame_is_that_step_of_its_slide_s_frames(client) -> None:
    """A step opened by its link is drawn from …/frames/{step} before its slide's frames arrive."""
    frames = client.get(f"/api/decks/{DECK}/slides/attention-map/frames").json()["frames"]
    for step in (1, 7):
        r = client.get(f"/api/decks/{DECK}/slides/attention-map/frames/{step}")
        assert r.status_code == 200
        assert r.json() == {"deck": DECK, "slide": "attention-map", "step": step, "frame": frames[step - 1]}
        again = client.get(r.url, headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304
    assert client.get(f"/api/decks/{DECK}/slides/attention-map/frames/8").json()["message"] == \
        f"unknown step 8 of slide 'attention-map' in deck '{DECK}'"
    zero = client.get(f"/api/decks/{DECK}/slides/attention-map/frames/0")
    assert zero.status_code == 422 and "step" in zero.json()["message"]
    assert "unknown slide 'nope'" in client.get(f"/api/decks/{DECK}/slides/nope/frames/1").json()["message"]


@pytest.mark.parametrize("url, needle", [
    ("/api/decks/nope", "unknown deck 'nope'"),
    ("/api/decks/nope/slides/x/frames", "unknown deck 'nope'"),
    (f"/api/decks/{DECK}/slides/nope/frames", "unknown slide 'nope'"),
    ("/talk/nope", "unknown deck 'nope'"),
])
def test_unknown_deck_or_slide_is_a_json_404(client, url, needle) -> None:
    r = client.get(url)
    assert r.status_code == 404
    assert needle in r.json()["message"]


def test_attention_chain_defaults(client) -> None:
    r = client.post("/api/attention", json={"tokens": ["the", "old", "dog", "sleeps"]})
    assert r.status_code == 200
    d = r.json()
    assert d["heads"] == 2 and d["d_k"] == 8 and len(d["per_head"]) == 2
    # By default only the attention maps (weights), as decimals to 4 places: a small, quick answer
    # whose rows still read as probabilities (each sums to 1 within the rounding of its 4 cells).
    assert d["include"] == ["weights"] and d["digits"] == 4 and d["numbers"] == "decimal"
    assert set(d["per_head"][0]) == {"head", "weights"}
    assert "concat" not in d and "output" not in d
    rows = d["per_head"][0]["weights"]
    assert rows[0] == [1.0, 0.0, 0.0, 0.0] and all(round(x, 4) == x for row in rows for x in row)
    assert all(abs(sum(row) - 1) <= 4 * 0.5e-4 + 1e-12 for row in rows)
    scaled = client.post("/api/attention", json={"tokens": ["the", "old", "dog", "sleeps"], "numbers": "scaled"}).json()
    assert scaled["numbers"] == "scaled"
    assert scaled["per_head"][0]["weights"] == [[round(x * 10_000) for x in row] for row in rows]
    r = client.post("/api/attention", json={"tokens": ["the", "old", "dog", "sleeps"], "digits": 12,
                                            "numbers": "decimal", "include": [
        "q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]})
    d = r.json()
    h = d["per_head"][0]
    for key in ["q", "k", "v", "scores", "masked", "weights", "output"]:
        assert key in h
    assert len(h["weights"]) == 4 and all(math.isclose(sum(row), 1.0) for row in h["weights"])
    assert h["masked"][0][1] is None and h["weights"][0][1] == 0.0  # causal by default
    assert len(d["concat"][0]) == 16 and len(d["output"][0]) == 16
    assert d["costs"]["flops_per_token"]["value"] == 4 * 2 * 16 * 16 + 2 * 2 * 2 * 8 * 4


def test_attention_text_and_cross_checks(client) -> None:
    a = client.post("/api/attention", json={"text": "a b c", "d_model": 12, "heads": 3, "causal": False,
                                            "include": ["weights", "final"]})
    assert a.status_code == 200
    w = a.json()["per_head"][2]["weights"]
    assert all(x > 0 for row in w for x in row)  # no mask
    same = client.post("/api/attention", json={"tokens": ["a", "b", "c"], "d_model": 12, "heads": 3,
                                               "include": ["weights", "final"],
                                               "causal": False})
    assert same.json()["output"] == a.json()["output"]  # deterministic


@pytest.mark.parametrize("body, field", [
    ({"tokens": ["x"] * 65}, "tokens"),
    ({"tokens": ["a"], "d_model": 513}, "d_model"),
    ({"tokens": ["a"], "d_model": 10, "heads": 3}, "heads"),
    ({"tokens": ["a"], "temperature": 0}, "temperature"),
    ({"tokens": ["a"], "seed": -1}, "seed"),
    ({}, "tokens or text"),
    ({"tokens": ["a"], "text": "a"}, "tokens or text"),
    ({"tokens": ["a"], "heads": "two"}, "heads"),
])
def test_attention_bad_input_is_422_naming_the_field(client, body, field) -> None:
    r = client.post("/api/attention", json=body)
    assert r.status_code == 422
    assert field in r.json()["message"]


def test_attention_non_finite_temperature(client) -> None:
    r = client.post("/api/attention", content=b'{"tokens": ["a"], "temperature": NaN}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_costs(client) -> None:
    r = client.get("/api/costs", params={"preset": "deepseek-v3.2", "n": 4096})
    assert r.status_code == 200
    c = r.json()["counts"]
    assert c["flops_per_token"]["value"] == 939_524_096 + 65_536 * 4096
    assert c["weights_per_head"]["value"] == 917_504
    assert c["kv_bytes_per_token_layer_mla"]["value"] == 1_152
    bad = client.get("/api/costs", params={"preset": "gpt-9"})
    assert bad.status_code == 422 and "preset" in bad.json()["message"]
    assert client.get("/api/costs", params={"n": 0}).status_code == 422


def test_openapi_and_offline_docs(client) -> None:
    spec = client.get("/openapi.json").json()
    for path in ["/api/decks", "/api/decks/{deck}", "/api/decks/{deck}/slides/{slide}/frames",
                 "/api/attention", "/api/costs", "/healthz"]:
        assert path in spec["paths"]
    docs = client.get("/docs")
    assert docs.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in docs.text
    assert "http" not in docs.text.split("<body>")[1].split("</body>")[0].replace("http-equiv", "")
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200


def test_attention_digits_round_every_number(client) -> None:
    body = {"tokens": ["the", "old", "dog"], "d_model": 8, "heads": 2, "causal": False}
    full = client.post("/api/attention", json={**body, "digits": 15, "numbers": "decimal"}).json()
    two = client.post("/api/attention", json={**body, "digits": 2, "numbers": "decimal"}).json()
    assert two["digits"] == 2
    for a, b in zip(full["per_head"][0]["weights"][1], two["per_head"][0]["weights"][1], strict=True):
        assert b == round(a, 2)
    default = client.post("/api/attention", json={**body, "numbers": "decimal"}).json()
    assert default["digits"] == 4  # compact by default: each weight to ±0.00005
    assert all(abs(sum(row) - 1) <= 3 * 0.00005 + 1e-12 for h in default["per_head"] for row in h["weights"])
    assert client.post("/api/attention", json={**body, "digits": 0}).status_code == 422


def get_urls(app, room: str = "") -> list[str]:
    """One real URL for every GET route of the app (path parameters filled with a real deck, slide
    and live room code; a mount with one of its files; WebSocket routes left out)."""
    from starlette.routing import Mount

    from shared_app import all_routes

    files = {"/static": "/static/css/talk.css", "/docs-assets": "/docs-assets/swagger-ui-bundle.js"}
    urls = []
    for path, route in all_routes(app):
        if isinstance(route, Mount):
            urls.append(files[path])  # a new mount needs a file here
        elif "GET" in (getattr(route, "methods", None) or ()):
            urls.append(path.replace("{deck}", DECK).replace("{slide}", "attention-map").replace("{step}", "2")
                        .replace("{code}", room))
    return urls


def test_every_get_route_answers_head(app, client) -> None:
    urls = get_urls(app, client.post("/api/rooms", json={"deck": DECK}).json()["code"])
    assert {"/", "/healthz", "/api/decks", f"/api/decks/{DECK}/slides/attention-map/frames"} <= set(urls)
    for url in urls:
        for coding in ("identity", "br"):
            got = client.get(url, headers={"accept-encoding": coding})
            head = client.head(url, headers={"accept-encoding": coding})
            assert got.status_code == 200, url
            assert head.status_code == got.status_code and head.content == b"", url
            same = {k: v for k, v in got.headers.items() if k != "date"}
            assert {k: v for k, v in head.headers.items() if k != "date"} == same, url
    etag = client.get("/api/decks/" + DECK).headers["etag"]
    assert client.head("/api/decks/" + DECK, headers={"if-none-match": etag}).status_code == 304


@pytest.mark.parametrize("url, location", [
    ("/api/decks/", "/api/decks"),
    ("/api/decks/?x=1&y=%2F", "/api/decks?x=1&y=%2F"),
    (f"/api/decks/{DECK}/", f"/api/decks/{DECK}"),
    (f"/talk/{DECK}/print/?notes=1", f"/talk/{DECK}/print?notes=1"),
    ("/healthz///", "/healthz"),
    ("/docs/", "/docs"),
])
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8443", "127.0.0.1:8000"])
def test_redirects_are_relative_whatever_the_host(client, url, location, host) -> None:
    for method in ("GET", "HEAD"):
        r = client.request(method, url, headers={"host": host, "x-forwarded-host": "evil.example"},
                           follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == location, (method, url)


def test_every_redirect_the_app_makes_is_relative(store) -> None:
    """A route that builds an absolute URL from the request (url_for) still redirects relatively;
    a Location that browsers would read as another host (//host, /\\host) is made local."""
    from fastapi.responses import RedirectResponse
    from fastapi.testclient import TestClient

    from attention_talk.web import create_app
    from attention_talk.web.redirects import relative_location

    app = create_app(store=store)

    @app.get("/go")
    async def go(request: Request) -> RedirectResponse:
        return RedirectResponse(str(request.url_for("healthz")) + "?a=1")

    r = TestClient(app).get("/go", headers={"host": "evil.example"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/healthz?a=1"
    for location, relative in [(b"http://evil.example/x?y=1#z", b"/x?y=1#z"), (b"//evil.example/x", b"/x"),
                               (b"/\\evil.example/x", b"/evil.example/x"), (b"https://evil.example", b"/"),
                               (b"/api/decks", b"/api/decks"), (b"next", b"next")]:
        assert relative_location(location) == relative, location
