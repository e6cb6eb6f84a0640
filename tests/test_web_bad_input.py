"""A barrage of bad requests: each gets a 4xx whose JSON ``message`` names the problem (a HEAD: the
status, no body; a redirect: a relative Location); none gets a 500; the server keeps serving
afterwards. ``WIRE`` holds the probes only a real server can receive (a head too large, a slow head
or body), sent over a socket to ``attention-talk serve``."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from attention_talk.web.settings import Settings

DECK = "attention-step-by-step"
JSON_CT = {"content-type": "application/json"}
OK = {"tokens": ["the", "old", "dog"]}
LIMIT = Settings().max_body_bytes
HEAD_LIMIT = Settings().max_header_bytes
ALL = ["q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]
BIG = {"tokens": [f"w{i}" for i in range(64)], "d_model": 512}  # as large as tokens and d_model go


class Location(str):
    """A row that expects a redirect to exactly this (relative) Location, not a JSON message."""


NO_BODY = ""  # a HEAD row: the status, with no body at all


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
    # loose types: the body is strict JSON, nothing is coerced (every field: test_every_body_field_...)
    ("d_model true", post({**OK, "d_model": True}), 422, "d_model"),
    ("d_model a numeric string", post({**OK, "d_model": "16"}), 422, "d_model"),
    ("d_model 16.0", post({**OK, "d_model": 16.0}), 422, "d_model"),
    ("heads false", post({**OK, "heads": False}), 422, "heads"),
    ("d_k true", post({**OK, "d_k": True}), 422, "d_k"),
    ("seed true", post({**OK, "seed": True}), 422, "seed"),
    ("digits a string", post({**OK, "digits": "6"}), 422, "digits"),
    ("causal 'yes'", post({**OK, "causal": "yes"}), 422, "causal"),
    ("causal 'true'", post({**OK, "causal": "true"}), 422, "causal"),
    ("causal 1", post({**OK, "causal": 1}), 422, "causal"),
    ("temperature '1'", post({**OK, "temperature": "1"}), 422, "temperature"),
    ("temperature true", post({**OK, "temperature": True}), 422, "temperature"),
    ("temperature a huge integer", post(raw=b'{"tokens": ["a"], "temperature": 1' + b"0" * 400 + b"}"), 422,
     "temperature"),
    ("text a number", post({"text": 12}), 422, "text"),
    ("token true", post({"tokens": ["a", True]}), 422, "tokens.1"),
    # responses too large: include chooses the tensors, and the count of numbers is capped
    ("include everything at the largest sizes", post({**BIG, "heads": 64, "d_k": 64, "include": ALL}), 422,
     "reduce tokens (64), heads (64), d_k (64), d_model (512) or include fewer"),
    ("maps and output of 64 heads of 64 tokens",
     post({**BIG, "heads": 64, "include": ["scores", "masked", "weights", "final"]}), 422, "heads, d_model, include"),
    ("q of 8 heads of width 512, and concat", post({**BIG, "heads": 8, "d_k": 512, "include": ["q", "concat"]}),
     422, "tokens, heads, d_k, include"),
    ("include an unknown tensor", post({**OK, "include": ["attention"]}), 422, "include.0"),
    ("include a string", post({**OK, "include": "q"}), 422, "include"),
    ("include a number", post({**OK, "include": [1]}), 422, "include.0"),
    ("include too long", post({**OK, "include": ["q"] * 19}), 422, "include"),
    # live rooms: strict bodies, unknown decks and rooms, codes too long (the socket's own table:
    # test_rooms_protocol.py BAD and GO_BAD)
    ("room deck a number", ("POST", "/api/rooms", {"json": {"deck": 3}}), 422, "deck"),
    ("room deck true", ("POST", "/api/rooms", {"json": {"deck": True}}), 422, "deck"),
    ("room deck empty", ("POST", "/api/rooms", {"json": {"deck": ""}}), 422, "deck"),
    ("room unknown field", ("POST", "/api/rooms", {"json": {"deck": DECK, "secret": "x"}}), 422, "secret"),
    ("room body a list", ("POST", "/api/rooms", {"json": [DECK]}), 422, "body"),
    ("room on an unknown deck", ("POST", "/api/rooms", {"json": {"deck": "nope"}}), 404, "unknown deck 'nope'"),
    ("remote QR secret a number", ("POST", "/api/rooms/ZZZZZZZZZ/remote-qr", {"json": {"secret": 5}}), 422,
     "secret"),
    ("remote QR of an unknown room", ("POST", "/api/rooms/ZZZZZZZZZ/remote-qr", {"json": {"secret": "s"}}), 404,
     "no live room"),
    ("room code too long", ("GET", "/join/" + "Z" * 21, {}), 422, "code"),
    ("room code not a code", ("GET", "/remote/C:followers", {}), 404, "no live room"),
    # the model's and the lab's inputs are bounded before any work is queued
    ("model text over 2,000 characters", ("POST", "/api/model/attention", {"json": {"text": "a" * 2001}}), 422,
     "text"),
    ("lab text over 2,000 characters", ("POST", "/api/model/lab", {"json": {"text": "a " * 1001}}), 422, "text"),
    ("model layers over 1,024 entries", ("POST", "/api/model/attention",
                                         {"json": {"text": "a", "layers": [0] * 1025}}), 422, "layers"),
    ("model heads an index past 1,023", ("POST", "/api/model/attention", {"json": {"text": "a", "heads": [1024]}}),
     422, "heads.0"),
    ("lab grid over 32 cells", ("POST", "/api/model/lab", {"json": {"text": "a", "grid": 33}}), 422, "grid"),
    ("derivation row past 63", ("POST", "/api/model/derivation", {"json": {
        "text": "a", "layer": 0, "head": 0, "tensor": "weights", "row": 64, "col": 0}}), 422, "row"),
    ("model body over the limit", ("POST", "/api/model/lab", {"content": b'{"text": "' + b"a" * LIMIT + b'"}',
                                                              "headers": JSON_CT}), 413, "body"),
    # HEAD answers as GET does, without a body
    ("HEAD an unknown deck", ("HEAD", "/api/decks/nope", {}), 404, NO_BODY),
    ("HEAD an unknown path", ("HEAD", "/api/nothing", {}), 404, NO_BODY),
    ("HEAD on a POST route", ("HEAD", "/api/attention", {}), 405, NO_BODY),
    ("HEAD with a bad query", ("HEAD", "/api/costs?n=0", {}), 422, NO_BODY),
    # redirects never name the Host the client sent
    ("trailing slash, hostile Host", ("GET", "/api/decks/", {"headers": {"host": "evil.example"}}), 307,
     Location("/api/decks")),
    ("trailing slash and query, hostile Host", ("GET", f"/api/decks/{DECK}/?x=1&y=%2F",
                                                {"headers": {"host": "evil.example"}}), 307,
     Location(f"/api/decks/{DECK}?x=1&y=%2F")),
    ("two trailing slashes, hostile X-Forwarded-Host", ("GET", "/healthz//", {"headers": {
        "host": "evil.example", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https"}}), 307,
     Location("/healthz")),
    ("trailing slash on a POST route", ("POST", "/api/attention/", {"json": OK, "headers": {"host": "evil"}}),
     307, Location("/api/attention")),
    ("trailing slash on an unknown path", ("GET", "/nothing/", {"headers": {"host": "evil.example"}}), 404,
     "/nothing/"),
    # a request line and headers over the limit (the server's parser also stops one that streams in)
    ("a header over the limit", ("GET", "/healthz", {"headers": {"x-big": "a" * HEAD_LIMIT}}), 431, "headers"),
    ("many headers over the limit", ("GET", "/healthz", {"headers": {f"x-{i}": "a" * 100 for i in range(200)}}),
     431, "headers"),
    ("a query over the limit", ("GET", "/api/costs?n=1&pad=" + "a" * HEAD_LIMIT, {}), 431, "headers"),
]


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as c:
        yield c


def test_the_table_is_big_enough() -> None:
    assert len(BAD) >= 30 and len({name for name, *_ in BAD}) == len(BAD)


@pytest.mark.parametrize("name, request_, status, words", BAD, ids=[b[0] for b in BAD])
def test_bad_request_gets_a_json_4xx_naming_the_problem(client, name, request_, status, words) -> None:
    method, url, kwargs = request_
    r = client.request(method, url, **kwargs)
    assert r.status_code == status, r.text
    if isinstance(words, Location):
        assert r.headers["location"] == words
        return
    if method == "HEAD":
        assert r.content == b"" and r.headers["content-type"].startswith("application/json")
        return
    assert r.headers["content-type"].startswith("application/json")
    assert words in r.json()["message"], r.json()


def test_server_keeps_serving_after_the_barrage(client) -> None:
    for _, (method, url, kwargs), _, _ in BAD:
        assert client.request(method, url, **kwargs).status_code < 500
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.post("/api/attention", json=OK).status_code == 200


# ---------------------------------------------------------------------------------------------
# strict bodies: every field of every JSON body refuses every JSON value not of its type


CANDIDATES = [True, False, 1, 1.5, "1", "true", [], [1], {}, {"a": 1}]  # one of each JSON type, and then some
ACCEPTS = {"boolean": lambda v: isinstance(v, bool),
           "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
           "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
           "string": lambda v: isinstance(v, str),
           "array": lambda v: isinstance(v, list)}


def json_types(prop: dict) -> set[str]:
    return {t for option in prop.get("anyOf", [prop]) if (t := option.get("type")) and t != "null"}


def wrong_types(model_name: str = "AttentionRequest") -> list[tuple[str, object]]:
    """(field, a value of another JSON type) for every field of a body model, from its schema."""
    from attention_talk.web import schemas

    cases = []
    for name, prop in getattr(schemas, model_name).model_json_schema()["properties"].items():
        types = json_types(prop)
        assert types <= set(ACCEPTS), (name, prop)
        cases += [(name, v) for v in CANDIDATES if not any(ACCEPTS[t](v) for t in types)]
    return cases


ROOM_BODIES = [("/api/rooms", "RoomRequest", {"deck": DECK}),
               ("/api/rooms/ZZZZZZZZZ/remote-qr", "RemoteQrRequest", {"secret": "s"})]
ROOM_CASES = [(url, valid, field, value) for url, model, valid in ROOM_BODIES for field, value in wrong_types(model)]


@pytest.mark.parametrize("url, valid, field, value", ROOM_CASES,
                         ids=[f"{u.rsplit('/', 1)[-1]}.{f}={v!r}" for u, _, f, v in ROOM_CASES])
def test_every_room_body_field_refuses_other_json_types(client, url, valid, field, value) -> None:
    r = client.post(url, json={**valid, field: value})
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(field), r.json()


@pytest.mark.parametrize("field, value", wrong_types(), ids=[f"{f}={v!r}" for f, v in wrong_types()])
def test_every_body_field_refuses_other_json_types(client, field, value) -> None:
    body = {"text": value} if field == "text" else {**OK, field: value}
    r = client.post("/api/attention", json=body)
    assert r.status_code == 422, (body, r.text)
    assert r.json()["message"].startswith(field), r.json()


def test_numbers_are_accepted_as_json_numbers(client) -> None:
    """Strict, not fussy: an integer where a decimal is allowed; the exact types everywhere else."""
    r = client.post("/api/attention", json={**OK, "temperature": 2, "d_model": 8, "heads": 2, "d_k": 4,
                                            "causal": False, "seed": 3, "digits": 4, "include": ["weights"]})
    assert r.status_code == 200, r.text


def test_every_json_body_model_is_strict(app) -> None:
    """Every route's JSON body model, now and later, is strict and refuses unknown fields."""
    from fastapi.routing import APIRoute

    from shared_app import all_routes

    bodies = {path: route.body_field for path, route in all_routes(app)
              if isinstance(route, APIRoute) and route.body_field}
    assert "/api/attention" in bodies
    for path, field in bodies.items():
        model = field.field_info.annotation
        config = model.model_config
        assert config.get("strict") is True and config.get("extra") == "forbid", f"{path}: {model.__name__} is loose"


# ---------------------------------------------------------------------------------------------
# on the wire: what only a real server receives (``attention-talk serve``, the ``served`` fixture)

HEAD_START = b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
POST_START = b"POST /api/attention HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


def trickle(data: bytes, every: float = 0.1) -> list[tuple[bytes, float]]:
    """``data`` a byte at a time, one every ``every`` seconds (slowloris)."""
    return [(data[i:i + 1], every) for i in range(len(data))]


# (name, pieces to send with the pause after each, expected status, words its JSON message must contain)
WIRE = [
    ("a 64 KiB header", [(HEAD_START + b"X-Big: " + b"a" * 65536 + b"\r\n\r\n", 0)], 431, "headers"),
    ("an 8 MiB header", [(HEAD_START + b"X-Big: " + b"a" * 8 * 2**20 + b"\r\n\r\n", 0)], 431, "headers"),
    ("a 20 KiB request line", [(b"GET /healthz?" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 0)], 431,
     "headers"),
    ("2,000 short headers", [(HEAD_START + b"".join(b"X-%d: y\r\n" % i for i in range(2000)) + b"\r\n", 0)], 431,
     "headers"),
    ("a head that stops", [(HEAD_START, 0)], 408, "headers: not received in full"),
    ("a head a byte at a time", trickle(HEAD_START + b"X-Slow: " + b"z" * 200), 408, "headers: not received"),
    ("a body that stops", [(POST_START + b"Content-Length: 100\r\n\r\n{\"tokens\"", 0)], 408,
     "body: not received in full"),
    ("a body a byte at a time", [(POST_START + b"Content-Length: 200\r\n\r\n", 0),
                                 *trickle(b'{"tokens": ["' + b"a" * 180 + b'"]}')], 408, "body: not received"),
    ("a chunked body that stops", [(POST_START + b"Transfer-Encoding: chunked\r\n\r\n5\r\n{\"tok\r\n", 0)], 408,
     "body: not received"),
    ("a declared body over the limit", [(POST_START + b"Content-Length: %d\r\n\r\n" % (LIMIT + 1), 0)], 413,
     "body: larger than"),
]


@pytest.mark.parametrize("name, pieces, status, words", WIRE, ids=[w[0] for w in WIRE])
def test_wire_level_bad_input_is_cut_off(served, name, pieces, status, words) -> None:
    """Each gets its 4xx with a JSON message within the server's timeout (and a margin), then the
    connection closes: no probe holds a connection for longer."""
    from served import ENV, connect, read_response, send_all

    limit = max(float(ENV["ATTENTION_TALK_BODY_TIMEOUT"]), float(ENV["ATTENTION_TALK_HEADER_TIMEOUT"])) + 3
    start = time.monotonic()
    with connect(served) as s:
        for data, pause in pieces:
            if not send_all(s, data) or time.monotonic() - start > limit:
                break
            time.sleep(pause)
        got, response = read_response(s)
    assert got == status, response[:300]
    assert time.monotonic() - start < limit
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower() and b"connection: close" in head.lower()
    assert words in json.loads(body)["message"]
