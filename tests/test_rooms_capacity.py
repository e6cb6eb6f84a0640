"""Room sockets and room starts have bounds of their own (rooms/capacity.py), apart from HTTP's:
per worker, per client address (an IPv6 /64), and followers per room (never the presenter); each
refusal names its setting, and a closed socket gives its place back. The real server, where HTTP
keeps its capacity with 80 followers open: test_web_server.py."""

from __future__ import annotations

import contextlib

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from attention_talk.rooms import HubUnavailable, InProcessHub
from attention_talk.rooms.capacity import KeyedRate, client_key
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from shared_app import default_store
from test_rooms_protocol import DECK, hello, new_room, refused


@contextlib.contextmanager
def sockets(client, url: str, n: int):
    """``n`` room sockets open at once (admitted at the handshake, no hello said)."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(client.websocket_connect(url)) for _ in range(n)]


def denied(client, url: str) -> WebSocketDenialResponse:
    with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect(url):
        pass  # pragma: no cover
    return refused.value


def test_sockets_are_bounded_per_client_address_and_per_worker() -> None:
    app = create_app(Settings(max_sockets=3, max_client_sockets=2, room_starts_per_minute=100), store=default_store())
    with TestClient(app) as a, TestClient(app, client=("203.0.113.9", 4000)) as b:
        url = f"/ws/rooms/{new_room(a)['code']}"
        with sockets(a, url, 2):
            too_many = denied(a, url)
            assert too_many.status_code == 429 and int(too_many.headers["retry-after"]) >= 1
            assert "ATTENTION_TALK_MAX_CLIENT_SOCKETS" in too_many.json()["message"]
            with sockets(b, url, 1):
                full = denied(b, url)
                assert full.status_code == 503 and int(full.headers["retry-after"]) >= 1
                assert "ATTENTION_TALK_MAX_SOCKETS" in full.json()["message"]
        with sockets(a, url, 2), sockets(b, url, 1):  # closed sockets give their places back
            assert app.state.room_sockets.open == 3
        assert app.state.room_sockets.open == 0 and not app.state.room_sockets.by_client


def test_a_full_room_refuses_followers_but_never_its_presenter() -> None:
    app = create_app(Settings(max_room_followers=2), store=default_store())
    with TestClient(app) as client:
        room, other = new_room(client), new_room(client)
        url = f"/ws/rooms/{room['code']}"
        with client.websocket_connect(url) as a, client.websocket_connect(url) as b:
            hello(a), hello(b)
            with client.websocket_connect(url) as c:
                c.send_text('{"type": "hello", "role": "follower"}')
                msg, code, reason = refused(c)
            assert code == 1013 and "room full" in msg["message"] and "ATTENTION_TALK_MAX_ROOM_FOLLOWERS" in reason
            with client.websocket_connect(url) as presenter:
                assert hello(presenter, "presenter", room["presenter_secret"])["type"] == "state"
            with client.websocket_connect(f"/ws/rooms/{other['code']}") as elsewhere:
                assert hello(elsewhere)["type"] == "state"  # the bound is per room
        with client.websocket_connect(url) as again:  # the seats are given back
            assert hello(again)["type"] == "state"


def test_room_starts_are_rate_limited_per_client_address() -> None:
    app = create_app(Settings(room_starts_per_minute=3), store=default_store())
    with TestClient(app) as a, TestClient(app, client=("2001:db8::1", 4000)) as b:
        assert [a.post("/api/rooms", json={"deck": DECK}).status_code for _ in range(3)] == [201] * 3
        r = a.post("/api/rooms", json={"deck": DECK})
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 20
        message = r.json()["message"]
        assert message.startswith("rooms:") and "ATTENTION_TALK_ROOM_STARTS_PER_MINUTE" in message
        assert b.post("/api/rooms", json={"deck": DECK}).status_code == 201  # another address
        assert a.post("/api/rooms", json={"deck": "no-such-deck"}).status_code == 404  # checked first


def test_client_addresses_and_their_buckets() -> None:
    assert client_key("192.0.2.7") == "192.0.2.7" and client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key(None) == "unknown" and client_key("testclient") == "testclient"
    now = [0.0]
    rate = KeyedRate(per_minute=2, max_keys=2, clock=lambda: now[0])
    assert [rate.wait("a"), rate.wait("a")] == [0, 0] and rate.wait("a") == pytest.approx(30)
    now[0] = 30
    assert rate.wait("a") == 0 and rate.wait("b") == 0 and rate.wait("c") == 0
    assert list(rate.buckets) == ["b", "c"]  # the least recently used forgotten


def test_a_hub_that_fails_on_join_refuses_with_1013() -> None:
    class Failing(InProcessHub):
        async def _subscribe(self, code: str) -> None:
            raise HubUnavailable("Redis went away")

    app = create_app(Settings(), store=default_store())
    app.state.rooms = Failing(idle_timeout=60)
    with TestClient(app) as client, client.websocket_connect(f"/ws/rooms/{new_room(client)['code']}") as ws:
        ws.send_text('{"type": "hello", "role": "follower"}')
        msg, code, _ = refused(ws)
    assert code == 1013 and msg == {"type": "error", "message": "rooms unavailable: reconnecting"}
