"""Room sockets through the real ``attention-talk serve`` with its default settings (uvicorn with
our h11 protocol, the websockets sans-I/O WebSocket protocol, the in-process hub): the upgrade is
accepted, a follower follows, a foreign Origin is refused at the handshake."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from fresh_loop import run

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
