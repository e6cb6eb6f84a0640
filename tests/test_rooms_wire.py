"""Room sockets through the real ``attention-talk serve`` with its default settings (uvicorn with
our h11 protocol, the websockets sans-I/O WebSocket protocol, the in-process hub): the upgrade is
accepted, a follower follows, a foreign Origin is refused at the handshake; hostile codes are
refused at every entry point; the presenter ends the room."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from fresh_loop import run
from hostile_codes import refused_everywhere

DECK = "attention-step-by-step"


def test_the_served_app_speaks_the_room_protocol(served) -> None:
    req = urllib.request.Request(f"{served}/api/rooms", data=json.dumps({"deck": DECK}).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        room = json.load(r)
    url = f"{served.replace('http://', 'ws://')}/ws/rooms/{room['code']}"

    async def talk() -> None:
        async with connect(url, origin=served) as follower, connect(url) as presenter:
            await follower.send('{"type": "hello", "role": "follower"}')
            assert json.loads(await follower.recv())["slide"] == 1
            await presenter.send(json.dumps({"type": "hello", "role": "presenter", "secret": room["presenter_secret"]}))
            await presenter.recv()
            await presenter.send('{"type": "go", "slide": 3, "step": 1, "paused": false}')
            while (msg := json.loads(await asyncio.wait_for(follower.recv(), 10)))["slide"] != 3:
                pass
            assert msg["deck"] == DECK and msg["step"] == 1
        with pytest.raises(InvalidStatus) as denied:
            await connect(url, origin="https://evil.example")
        assert denied.value.response.status_code == 403

    run(talk())


def new_room(url: str, deck: str = DECK) -> dict:
    req = urllib.request.Request(f"{url}/api/rooms", data=json.dumps({"deck": deck}).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)


def test_hostile_codes_are_refused_at_every_entry_point(served) -> None:
    refused_everywhere(served, new_room(served)["code"])


async def closed_with(ws) -> tuple[int, str]:
    """Read until the server closes the socket; its close code and reason."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await asyncio.wait_for(ws.recv(), 10)
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_the_presenter_ends_the_room_and_every_socket_closes_with_4410(served) -> None:
    room = new_room(served)
    url = f"{served.replace('http://', 'ws://')}/ws/rooms/{room['code']}"
    presenter_hello = json.dumps({"type": "hello", "role": "presenter", "secret": room["presenter_secret"]})

    async def talk() -> None:
        async with connect(url) as presenter, connect(url) as follower, connect(url) as intruder:
            for ws, hello in ((follower, '{"type": "hello", "role": "follower"}'), (presenter, presenter_hello),
                              (intruder, '{"type": "hello", "role": "follower"}')):
                await ws.send(hello)
                assert json.loads(await ws.recv())["type"] == "state"
            await intruder.send('{"type": "end"}')  # a follower may not end it
            assert json.loads(await asyncio.wait_for(intruder.recv(), 10))["message"].startswith("end: followers")
            assert (await closed_with(intruder))[0] == 4403
            await presenter.send('{"type": "end", "extra": 1}')  # nor may a malformed end
            assert (await closed_with(presenter))[0] == 1008
        async with connect(url) as presenter, connect(url) as follower:
            await follower.send('{"type": "hello", "role": "follower"}')
            await presenter.send(presenter_hello)
            await presenter.recv()
            await presenter.send('{"type": "end"}')
            for ws in (presenter, follower):
                assert await closed_with(ws) == (4410, "room ended by the presenter")
        async with connect(url) as late:
            await late.send('{"type": "hello", "role": "follower"}')
            assert json.loads(await late.recv())["message"].startswith("unknown room")
            assert (await closed_with(late))[0] == 4404

    run(talk())
    with pytest.raises(urllib.error.HTTPError) as gone:
        urllib.request.urlopen(f"{served}/join/{room['code']}", timeout=10)
    assert gone.value.code == 404
