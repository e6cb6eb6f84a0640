"""Live rooms, in process: starting a room, the WebSocket protocol, and every refusal (a follower's
go, a wrong secret, a bad Origin, oversized, malformed, loosely typed or twice-keyed and too many
messages, an unknown room, a full room or server, too many sockets or room starts from one
address), each leaving the room as it was. Links and the Origin check never trust the Host header."""

from __future__ import annotations

import math
import re

import orjson
import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect

from attention_talk.rooms import InProcessHub
from attention_talk.rooms.codes import ALPHABET, normalise_code
from attention_talk.rooms.messages import Answer, BadMessage, Go, Hello, Reveal, parse
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from fresh_loop import run
from shared_app import default_store

DECK = "attention-step-by-step"


@pytest.fixture(scope="module")
def rooms():
    app = create_app(Settings(room_origins="https://mirror.example.org", room_rate_limit=10,
                              room_starts_per_minute=10_000), store=default_store())
    with TestClient(app, base_url="http://talk.test") as client:
        yield client


def new_room(client) -> dict:
    r = client.post("/api/rooms", json={"deck": DECK})
    assert r.status_code == 201, r.text
    return r.json()


def hello(ws, role="follower", secret=None) -> dict:
    ws.send_text(orjson.dumps({"type": "hello", "role": role, **({"secret": secret} if secret else {})}).decode())
    return ws.receive_json()


def refused(ws) -> tuple[dict, int, str]:
    """The error message (after any states still on their way: a follower count), then the close
    code and reason."""
    while (msg := ws.receive_json())["type"] == "state":
        pass
    with pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    return msg, closed.value.code, closed.value.reason


def until(ws, wanted, most: int = 5) -> dict:
    """The first state that is ``wanted`` among the next few (count updates come and go between)."""
    for _ in range(most):
        if wanted(state := ws.receive_json()):
            return state
    raise AssertionError(f"no wanted state in {most} messages; last {state}")


def test_a_room_has_a_readable_unguessable_code_and_a_long_secret(rooms) -> None:
    room = new_room(rooms)
    assert set(room) == {"code", "presenter_secret", "join_url", "remote_url"}
    code = room["code"]
    assert set(code) <= set(ALPHABET) and len(code) <= 10
    assert len(code) * math.log2(len(ALPHABET)) >= 40
    assert len(room["presenter_secret"]) >= 40
    assert room["join_url"] == f"http://talk.test/join/{code}"
    assert room["remote_url"] == f"http://talk.test/remote/{code}#secret={room['presenter_secret']}"
    assert normalise_code(f"{code[:3].lower()}-{code[3:6]} {code[6:]}") == code
    assert new_room(rooms)["code"] != code


def test_pages_for_followers_and_the_remote_never_hold_the_secret(rooms) -> None:
    room = new_room(rooms)
    for path in (f"/join/{room['code']}", f"/join/{room['code'].lower()}", f"/remote/{room['code']}"):
        page = rooms.get(path)
        assert page.status_code == 200 and room["code"] in page.text
        assert room["presenter_secret"] not in page.text
    qr = rooms.get(f"/join/{room['code']}/qr.svg")
    assert qr.headers["content-type"] == "image/svg+xml" and qr.text.startswith("<svg")
    remote_qr = rooms.post(f"/api/rooms/{room['code']}/remote-qr", json={"secret": room["presenter_secret"]})
    assert remote_qr.status_code == 200 and "<path" in remote_qr.text
    wrong = rooms.post(f"/api/rooms/{room['code']}/remote-qr", json={"secret": "guess"})
    assert wrong.status_code == 403 and "guess" not in wrong.text


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"deck": "no-such-deck"}, 404, "deck"), ({}, 422, "deck"), ({"deck": 3}, 422, "deck"),
    ({"deck": DECK, "extra": 1}, 422, "extra")])
def test_starting_a_room_refuses_bad_bodies(rooms, body, status, field) -> None:
    r = rooms.post("/api/rooms", json=body)
    assert r.status_code == status and r.json()["message"].startswith(field)


def test_unknown_room_pages_are_404(rooms) -> None:
    for path in ("/join/ZZZZZZZZZ", "/join/not-a-code", "/remote/ZZZZZZZZZ", "/join/ZZZZZZZZZ/qr.svg"):
        r = rooms.get(path)
        assert r.status_code == 404 and "no live room" in r.json()["message"]


def test_followers_follow_the_presenter(rooms) -> None:
    room = new_room(rooms)
    url = f"/ws/rooms/{room['code']}"
    with rooms.websocket_connect(url) as presenter, rooms.websocket_connect(url) as a, \
            rooms.websocket_connect(url, headers={"origin": "http://testserver"}) as b:
        first = hello(presenter, "presenter", room["presenter_secret"])
        assert first == {"type": "state", "deck": DECK, "slide": 1, "step": 1, "paused": False, "followers": 0}
        assert hello(a)["slide"] == 1
        assert hello(b)["type"] == "state"
        assert until(presenter, lambda s: s["followers"] == 2)["slide"] == 1  # the count reaches everyone
        presenter.send_text('{"type": "go", "slide": 2, "step": 2, "paused": "black"}')
        for ws in (presenter, a, b):
            state = until(ws, lambda s: s["slide"] == 2 and s["followers"] == 2)
            assert state == {"type": "state", "deck": DECK, "slide": 2, "step": 2, "paused": "black", "followers": 2}


def test_a_follower_may_not_go_and_the_room_stays(rooms) -> None:
    room = new_room(rooms)
    url = f"/ws/rooms/{room['code']}"
    with rooms.websocket_connect(url) as follower:
        hello(follower)
        follower.send_text('{"type": "go", "slide": 3, "step": 1, "paused": false}')
        msg, code, _ = refused(follower)
    assert msg["type"] == "error" and "only the presenter" in msg["message"] and code == 4403
    with rooms.websocket_connect(url) as other:
        assert hello(other)["slide"] == 1


def test_a_wrong_secret_is_refused(rooms) -> None:
    room = new_room(rooms)
    with rooms.websocket_connect(f"/ws/rooms/{room['code']}") as ws:
        ws.send_text('{"type": "hello", "role": "presenter", "secret": "' + "x" * 43 + '"}')
        msg, code, reason = refused(ws)
    assert code == 4403 and "wrong secret" in reason and "xxx" not in msg["message"]
    with rooms.websocket_connect(f"/ws/rooms/{room['code']}") as ws:
        ws.send_text('{"type": "hello", "role": "presenter"}')
        assert refused(ws)[1] == 4403


def test_an_unknown_room_says_so(rooms) -> None:
    with rooms.websocket_connect("/ws/rooms/ZZZZZZZZZ") as ws:
        msg, code, reason = refused(ws)
    assert code == 4404 and reason.startswith("unknown room ZZZZZZZZZ") and msg["type"] == "error"


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://talk.test.evil.example"])
def test_a_foreign_origin_is_refused_at_the_handshake(rooms, origin) -> None:
    room = new_room(rooms)
    with pytest.raises(WebSocketDenialResponse) as denied, \
            rooms.websocket_connect(f"/ws/rooms/{room['code']}", headers={"origin": origin}):
        pass  # pragma: no cover
    assert denied.value.status_code == 403 and "Origin" in denied.value.json()["message"]
    with rooms.websocket_connect(f"/ws/rooms/{room['code']}", headers={"origin": "https://mirror.example.org"}) as ws:
        assert hello(ws)["type"] == "state"  # an extra allowed origin (ATTENTION_TALK_ROOM_ORIGINS)


BAD = [
    ("not json", 1008, "not JSON"),
    ('["hello"]', 1008, "message"),
    ('{"type": "hello", "role": "audience"}', 1008, "role"),
    ('{"type": "hello", "role": "follower", "extra": 1}', 1008, "extra"),
    ('{"type": "go", "slide": 1, "step": 1, "paused": false}', 1008, "first message must be a hello"),
    ('{"type": "hello", "role": "follower", "pad": "' + "x" * 1100 + '"}', 1009, "too large"),
    ("x" * 1_000_000, 1009, "too large"),
    # a key twice: JSON parsers disagree on which value wins, so the message is refused
    ('{"type": "hello", "role": "follower", "role": "presenter"}', 1008, "role: given twice"),
    ('{"type": "hello", "type": "hello", "role": "follower"}', 1008, "type: given twice"),
    ('{"type": "hello", "role": "follower", "secret": null, "secret": "x"}', 1008, "secret: given twice"),
    # loose types: a field takes its own JSON type only
    ('{"type": "hello", "role": "presenter", "secret": 12345}', 1008, "secret"),
    ('{"type": "hello", "role": true}', 1008, "role"),
]


@pytest.mark.parametrize(("text", "code", "says"), BAD, ids=range(len(BAD)))
def test_malformed_and_oversized_hellos_are_refused(rooms, text, code, says) -> None:
    room = new_room(rooms)
    with rooms.websocket_connect(f"/ws/rooms/{room['code']}") as ws:
        ws.send_text(text)
        msg, closed, _ = refused(ws)
    assert (closed, msg["type"]) == (code, "error") and says in msg["message"]


GO_BAD = ['{"type": "go", "slide": 99, "step": 1, "paused": false}',
          '{"type": "go", "slide": 1, "step": 99, "paused": false}',
          '{"type": "go", "slide": "2", "step": 1, "paused": false}',
          '{"type": "go", "slide": 2, "step": 1, "paused": "purple"}',
          '{"type": "go", "slide": 2.5, "step": 1, "paused": false}',
          '{"type": "go", "slide": 2, "step": 1, "paused": 0}',
          '{"type": "go", "slide": 2, "step": 1, "paused": 0.0}',
          '{"type": "go", "slide": 2, "step": 1, "paused": true}',
          '{"type": "go", "slide": true, "step": 1, "paused": false}',
          '{"type": "go", "slide": 2, "step": 1.0, "paused": false}',
          '{"type": "go", "slide": 2, "slide": 3, "step": 1, "paused": false}',
          '{"type": "go", "slide": 2, "step": 1, "paused": false, "paused": "black"}',
          '{"type": "hello", "role": "follower"}']


@pytest.mark.parametrize("text", GO_BAD, ids=range(len(GO_BAD)))
def test_bad_moves_from_the_presenter_are_refused_and_the_room_stays(rooms, text) -> None:
    room = new_room(rooms)
    url = f"/ws/rooms/{room['code']}"
    with rooms.websocket_connect(url) as follower, rooms.websocket_connect(url) as presenter:
        hello(follower)
        hello(presenter, "presenter", room["presenter_secret"])
        presenter.send_text(text)
        msg, code, _ = refused(presenter)
        assert code == 1008 and msg["type"] == "error" and re.match(r"(slide|step|paused|hello)", msg["message"])
    with rooms.websocket_connect(url) as other:
        assert hello(other)["slide"] == 1


def test_a_flood_is_refused(rooms) -> None:
    room = new_room(rooms)
    url = f"/ws/rooms/{room['code']}"
    with rooms.websocket_connect(url) as presenter:
        hello(presenter, "presenter", room["presenter_secret"])
        for _ in range(200):
            presenter.send_text('{"type": "go", "slide": 2, "step": 1, "paused": false}')
        messages = []
        with pytest.raises(WebSocketDisconnect) as closed:
            while True:
                messages.append(presenter.receive_json())
    assert closed.value.code == 4429 and messages[-1] == {"type": "error", "message": "too many messages: slow down"}
    with rooms.websocket_connect(url) as other:
        assert hello(other)["slide"] == 2  # the moves inside the limit counted; the room still works


def test_rooms_expire_after_their_idle_time() -> None:
    now = [0.0]
    hub = InProcessHub(idle_timeout=60, clock=lambda: now[0])

    class Presenter:
        role = "presenter"

        def deliver(self, message: str) -> None:
            pass

    async def scenario() -> tuple:
        room = await hub.create(DECK)
        presenter = Presenter()
        await hub.join(room.code, presenter, await hub.find(room.code))  # claimed: the idle timeout holds
        await hub.leave(room.code, presenter)
        now[0] = 59
        alive = await hub.find(room.code)
        now[0] = 59 + 61
        return alive, await hub.find(room.code)

    alive, gone = run(scenario())
    assert alive is not None and alive.deck == DECK and gone is None


# ---------------------------------------------------------------------------------------------
# strict messages: every field of every client message refuses every JSON value not of its type

CANDIDATES = [True, False, 0, 1, 0.0, 1.0, 1.5, "", "1", "false", "black", [], [1], {}, {"a": 1}, None]
JSON_TYPES = {"boolean": lambda v: isinstance(v, bool),
              "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
              "string": lambda v: isinstance(v, str),
              "null": lambda v: v is None, "array": lambda v: isinstance(v, list)}
VALID = {Hello: {"type": "hello", "role": "presenter", "secret": "s" * 43},
         Go: {"type": "go", "slide": 2, "step": 1, "paused": False},
         Answer: {"type": "answer", "slide": 1, "step": 6, "pick": [1]},
         Reveal: {"type": "reveal", "slide": 1, "step": 6}}


def of_its_type(value, prop: dict) -> bool:
    """Whether ``value`` has a JSON type ``prop`` (one property of a JSON schema) allows; an enum or a
    const matches by type too (``0`` is not ``false``)."""
    options = prop.get("anyOf", [prop])
    for option in options:
        allowed = option.get("enum", [option["const"]] if "const" in option else None)
        if allowed is not None:
            if any(value == a and type(value) is type(a) for a in allowed):
                return True
        elif JSON_TYPES[option["type"]](value):
            return True
    return False


def loose_values() -> list[tuple[type, str, object]]:
    cases = []
    for model in (Hello, Go, Answer, Reveal):
        for name, prop in model.model_json_schema()["properties"].items():
            cases += [(model, name, v) for v in CANDIDATES if not of_its_type(v, prop) and name != "type"]
    return cases


@pytest.mark.parametrize(("model", "field", "value"), loose_values(),
                         ids=[f"{m.__name__}.{f}={v!r}" for m, f, v in loose_values()])
def test_every_message_field_refuses_other_json_types(model, field, value) -> None:
    with pytest.raises(BadMessage) as refused:
        parse(orjson.dumps({**VALID[model], field: value}))
    assert str(refused.value).startswith(f"{field}:"), str(refused.value)


def test_the_strict_table_covers_every_field_and_valid_messages_pass() -> None:
    assert {(m, f) for m, f, _ in loose_values()} == {(Hello, "role"), (Hello, "secret"), (Go, "slide"),
                                                       (Go, "step"), (Go, "paused"), (Hello, "token"),
                                                       (Answer, "slide"), (Answer, "step"), (Answer, "pick"),
                                                       (Reveal, "slide"), (Reveal, "step")}
    assert [(m, f) for m, f, v in loose_values() if v == 0 and not isinstance(v, bool)].count((Go, "paused")) == 2
    for model, valid in VALID.items():
        assert isinstance(parse(orjson.dumps(valid)), model)
    assert parse('{"type": "go", "slide": 1, "step": 1, "paused": "white"}').paused == "white"


def test_a_message_type_that_is_not_a_string_is_refused() -> None:
    for value in (True, 0, None, ["hello"], {"hello": 1}):
        with pytest.raises(BadMessage) as refused:
            parse(orjson.dumps({"type": value, "role": "follower"}))
        assert "type" in str(refused.value) or str(refused.value).startswith("message"), str(refused.value)


def test_a_key_twice_is_refused_at_any_depth() -> None:
    with pytest.raises(BadMessage, match="a: given twice"):
        parse('{"type": "hello", "role": "follower", "x": {"a": 1, "a": 1}}')


# ---------------------------------------------------------------------------------------------
# links and the Origin check: the server's own origins, never the Host header alone


def test_links_never_name_the_host_header(rooms, monkeypatch) -> None:
    """The socket's own address (the test client's is talk.test) makes the links, whatever Host says;
    the remote's QR code (which carries the secret) too."""
    from attention_talk.web.routes import rooms as routes

    drawn: list[str] = []
    monkeypatch.setattr(routes, "qr_svg", lambda url: drawn.append(url) or routes.Response(b"<svg/>"))
    for host in ("evil.example", "talk.test.evil.example", "talk.test@evil.example", "evil.example:80"):
        room = rooms.post("/api/rooms", json={"deck": DECK}, headers={"host": host}).json()
        assert room["join_url"] == f"http://talk.test/join/{room['code']}", host
        assert room["remote_url"].startswith(f"http://talk.test/remote/{room['code']}#secret="), host
        drawn.clear()
        rooms.post(f"/api/rooms/{room['code']}/remote-qr", json={"secret": room["presenter_secret"]},
                   headers={"host": host})
        rooms.get(f"/join/{room['code']}/qr.svg", headers={"host": host})
        assert [u.split("#")[0] for u in drawn] == [f"http://talk.test/remote/{room['code']}",
                                                    f"http://talk.test/join/{room['code']}"], host


def test_links_follow_a_host_that_is_one_of_the_servers_own_origins(rooms) -> None:
    """Host only picks among configured origins: ATTENTION_TALK_ROOM_ORIGINS here."""
    room = rooms.post("/api/rooms", json={"deck": DECK}, headers={"host": "mirror.example.org:443"}).json()
    assert room["join_url"] == f"http://talk.test/join/{room['code']}"  # http, not https: another origin
    room = rooms.post("https://talk.test/api/rooms", json={"deck": DECK},
                      headers={"host": "mirror.example.org"}).json()
    assert room["join_url"] == f"https://mirror.example.org/join/{room['code']}"


def test_public_url_makes_every_link_and_is_an_allowed_origin() -> None:
    app = create_app(Settings(public_url="https://talk.example.org/live/"), store=default_store())
    with TestClient(app) as client:
        room = client.post("/api/rooms", json={"deck": DECK}, headers={"host": "evil.example"}).json()
        assert room["join_url"] == f"https://talk.example.org/live/join/{room['code']}"
        origin = {"origin": "https://talk.example.org"}
        with client.websocket_connect(f"/ws/rooms/{room['code']}", headers=origin) as ws:
            assert hello(ws)["type"] == "state"


@pytest.mark.parametrize(("origin", "host"), [
    ("http://evil.example", "evil.example"),  # a matching forged pair (DNS rebinding sends just that)
    ("http://evil.example:80", "evil.example:80"),
    ("https://mirror.example.org:8443", "mirror.example.org:8443"),  # a configured host, another port
    ("http://localhost:8000", "localhost:8000"),  # a loopback name, but not this server's port
    ("http://testserver.evil.example", "testserver.evil.example")])
def test_an_origin_matching_a_forged_host_is_refused(rooms, origin, host) -> None:
    room = new_room(rooms)
    with pytest.raises(WebSocketDenialResponse) as denied, \
            rooms.websocket_connect(f"/ws/rooms/{room['code']}", headers={"origin": origin, "host": host}):
        pass  # pragma: no cover
    assert denied.value.status_code == 403 and "ATTENTION_TALK_ROOM_ORIGINS" in denied.value.json()["message"]


def test_the_servers_own_origin_is_allowed_whatever_the_host(rooms) -> None:
    room = new_room(rooms)
    for origin in ("http://testserver", "http://TESTSERVER:80", "https://mirror.example.org", "http://localhost",
                   "http://127.0.0.1:80", "http://[::1]"):  # the socket's port under a loopback name
        with rooms.websocket_connect(f"/ws/rooms/{room['code']}", headers={"origin": origin, "host": "x"}) as ws:
            assert hello(ws)["type"] == "state", origin


def test_a_dual_stack_socket_address_is_its_ipv4_origin() -> None:
    from starlette.requests import HTTPConnection

    from attention_talk.web.routes.rooms import served_origins

    conn = HTTPConnection({"type": "websocket", "scheme": "ws", "server": ("::ffff:192.0.2.5", 8000), "path": "/",
                           "headers": [], "query_string": b""})
    assert ("http", "192.0.2.5", 8000) in served_origins(conn)
    assert ("http", "localhost", 8000) in served_origins(conn) and len(served_origins(conn)) == 4
