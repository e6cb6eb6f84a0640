"""A barrage of bad requests: each gets a 4xx whose JSON ``message`` names the problem; none gets a
500; the server keeps serving afterwards."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from attention_talk.web.settings import Settings

DECK = "attention-step-by-step"
JSON_CT = {"content-type": "application/json"}
OK = {"tokens": ["the", "old", "dog"]}
LIMIT = Settings().max_body_bytes


def post(body: dict | list | str | int | None = None, *, raw: bytes | None = None,
         headers: dict | None = None) -> tuple:
    return ("POST", "/api/attention", {"json": body} if raw is None else
            {"content": raw, "headers": headers or JSON_CT})


class Chunks:
    """A body sent in chunks with no Content-Length (re-iterable, so the barrage can resend it)."""

    def __init__(self, size: int) -> None:
        self.size = size

    def __iter__(self):
        for _ in range(0, self.size, 8192):
            yield b" " * 8192


# (name, (method, url, request kwargs), expected status, words the message must contain)
BAD = [
    # wrong types
    ("tokens not a list", post({"tokens": "the dog"}), 422, "tokens"),
    ("token not a string", post({"tokens": ["a", 3]}), 422, "tokens.1"),
    ("d_model a string", post({**OK, "d_model": "big"}), 422, "d_model"),
    ("d_model a float", post({**OK, "d_model": 16.5}), 422, "d_model"),
    ("heads a string", post({**OK, "heads": "two"}), 422, "heads"),
    ("causal not a boolean", post({**OK, "causal": "sometimes"}), 422, "causal"),
    ("temperature a string", post({**OK, "temperature": "hot"}), 422, "temperature"),
    ("body a list", post([1, 2, 3]), 422, "body"),
    ("body a number", post(42), 422, "body"),
    ("unknown field", post({**OK, "colour": "red"}), 422, "colour"),
    # missing fields
    ("empty object", post({}), 422, "tokens or text"),
    ("no body", ("POST", "/api/attention", {}), 422, "body"),
    ("both tokens and text", post({**OK, "text": "a b"}), 422, "tokens or text"),
    ("empty token list", post({"tokens": []}), 422, "tokens"),
    ("empty token", post({"tokens": [""]}), 422, "tokens.0"),
    ("blank text", post({"text": "   "}), 422, "text"),
    # sizes
    ("too many tokens", post({"tokens": ["x"] * 65}), 422, "tokens"),
    ("too many words in text", post({"text": "x " * 65}), 422, "text"),
    ("token too long", post({"tokens": ["x" * 41]}), 422, "tokens.0"),
    ("d_model too large", post({**OK, "d_model": 513}), 422, "d_model"),
    ("d_model zero", post({**OK, "d_model": 0}), 422, "d_model"),
    ("heads do not divide d_model", post({**OK, "d_model": 10, "heads": 3}), 422, "heads"),
    ("heads zero", post({**OK, "heads": 0}), 422, "heads"),
    ("heads × d_k too large", post({**OK, "heads": 64, "d_k": 512}), 422, "d_k"),
    ("huge d_model", post({**OK, "d_model": 10**40}), 422, "d_model"),
    ("huge seed", post({**OK, "seed": 2**64}), 422, "seed"),
    ("negative seed", post({**OK, "seed": -1}), 422, "seed"),
    # non-finite numbers (JSON has no NaN; Python's parser accepts it, so the model must refuse it)
    ("NaN temperature", post(raw=b'{"tokens": ["a"], "temperature": NaN}'), 422, "temperature"),
    ("inf temperature", post(raw=b'{"tokens": ["a"], "temperature": Infinity}'), 422, "temperature"),
    ("-inf temperature", post(raw=b'{"tokens": ["a"], "temperature": -Infinity}'), 422, "temperature"),
    ("zero temperature", post({**OK, "temperature": 0}), 422, "temperature"),
    ("1e999 temperature", post(raw=b'{"tokens": ["a"], "temperature": 1e999}'), 422, "temperature"),
    # bodies that are not JSON, not UTF-8, or too large
    ("not JSON", post(raw=b"tokens=the+dog"), 422, "not valid JSON"),
    ("truncated JSON", post(raw=b'{"tokens": ["a"'), 422, "not valid JSON"),
    ("Latin-1 body", post(raw='{"tokens": ["café"]}'.encode("latin-1")), 400, "UTF-8"),
    ("binary body", post(raw=b"\xff\xfe\x00\x01\x80\x81"), 422, "body"),
    ("oversize body", post(raw=b" " * (LIMIT + 1)), 413, "body: larger than"),
    ("oversize chunked body", ("POST", "/api/attention", {"content": Chunks(LIMIT + 8192),
                                                         "headers": JSON_CT}), 413, "body: larger than"),
    ("form body", post(raw=b"tokens=a", headers={"content-type": "application/x-www-form-urlencoded"}),
     422, "body"),
    # unknown decks, slides, paths and methods
    ("unknown deck", ("GET", "/api/decks/nope", {}), 404, "unknown deck 'nope'"),
    ("unknown deck's frames", ("GET", "/api/decks/nope/slides/x/frames", {}), 404, "unknown deck 'nope'"),
    ("unknown slide", ("GET", f"/api/decks/{DECK}/slides/nope/frames", {}), 404, "unknown slide 'nope'"),
    ("unknown talk", ("GET", "/talk/nope", {}), 404, "unknown deck 'nope'"),
    ("deck id too long", ("GET", "/api/decks/" + "a" * 81, {}), 422, "deck"),
    ("unknown API path", ("GET", "/api/nothing", {}), 404, "/api/nothing"),
    ("missing static file", ("GET", "/static/js/nope.js", {}), 404, "/static/js/nope.js"),
    (".. in a static path", ("GET", "/static/%2e%2e/pyproject.toml", {}), 404, "nothing at"),
    (".. twice in a static path", ("GET", "/static/css/%2e%2e/%2e%2e/%2e%2e/etc/passwd", {}), 404, "nothing at"),
    ("encoded / and .. in a deck id", ("GET", "/api/decks/..%2f..%2fpyproject.toml", {}), 404, "nothing at"),
    (".. in a slide id", ("GET", f"/api/decks/{DECK}/slides/%2e%2e/frames", {}), 404, "unknown slide '..'"),
    ("wrong method", ("DELETE", "/api/decks", {}), 405, "DELETE"),
    ("GET on a POST route", ("GET", "/api/attention", {}), 405, "GET"),
    # the cost model's query
    ("unknown preset", ("GET", "/api/costs?preset=gpt-9", {}), 422, "preset"),
    ("n not a number", ("GET", "/api/costs?n=many", {}), 422, "n"),
    ("n zero", ("GET", "/api/costs?n=0", {}), 422, "n"),
    ("huge n", ("GET", "/api/costs?n=99999999999999999999999999", {}), 422, "n"),
]


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c


def test_the_table_is_big_enough() -> None:
    assert len(BAD) >= 30 and len({name for name, *_ in BAD}) == len(BAD)


@pytest.mark.parametrize("name, request_, status, words", BAD, ids=[b[0] for b in BAD])
def test_bad_request_gets_a_json_4xx_naming_the_problem(client, name, request_, status, words) -> None:
    method, url, kwargs = request_
    r = client.request(method, url, **kwargs)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert words in r.json()["message"], r.json()


def test_server_keeps_serving_after_the_barrage(client) -> None:
    for _, (method, url, kwargs), _, _ in BAD:
        assert client.request(method, url, **kwargs).status_code < 500
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.post("/api/attention", json=OK).status_code == 200
