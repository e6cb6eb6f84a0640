"""The in-process hub (the default): rooms live in this worker's memory, so every socket of a room
must reach the same process (``ATTENTION_TALK_WORKERS=1``, or Redis for more)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from attention_talk.rooms.codes import digest, new_code, new_secret
from attention_talk.rooms.hub import HubFull, NewRoom, RoomHub, RoomInfo
from attention_talk.rooms.messages import State


@dataclass
class _Room:
    digest: str
    state: State
    last_active: float


class InProcessHub(RoomHub):
    def __init__(self, idle_timeout: float, max_rooms: int = 1000, clock=time.monotonic) -> None:
        super().__init__(idle_timeout)
        self.max_rooms = max_rooms
        self.clock = clock
        self.rooms: dict[str, _Room] = {}

    def _expired(self, code: str, room: _Room) -> bool:
        return code not in self.local and self.clock() - room.last_active > self.idle_timeout

    def _sweep(self) -> None:
        for code in [c for c, r in self.rooms.items() if self._expired(c, r)]:
            del self.rooms[code]

    async def create(self, deck: str) -> NewRoom:
        self._sweep()
        if len(self.rooms) >= self.max_rooms:
            raise HubFull(f"{self.max_rooms} rooms are open (ATTENTION_TALK_MAX_ROOMS); try again later")
        code, secret = new_code(), new_secret()
        while code in self.rooms:  # pragma: no cover - 1 in 2**45
            code = new_code()
        self.rooms[code] = _Room(digest(secret), State(deck), self.clock())
        return NewRoom(code, secret, deck)

    async def find(self, code: str) -> RoomInfo | None:
        room = self.rooms.get(code)
        if room is None:
            return None
        if self._expired(code, room):
            del self.rooms[code]
            return None
        room.last_active = self.clock()
        return RoomInfo(room.state.deck, room.digest, room.state)

    async def go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        room = self.rooms.get(code)
        if room is None:
            return False
        room.state = replace(room.state, slide=slide, step=step, paused=paused, seq=room.state.seq + 1)
        room.last_active = self.clock()
        self.on_state(code, room.state)
        return True

    async def _subscribe(self, code: str) -> None:
        pass

    async def _unsubscribe(self, code: str) -> None:
        if code in self.rooms:
            self.rooms[code].last_active = self.clock()  # idle from the moment the last socket left

    async def _count(self, code: str, here: int, notify: bool) -> int:
        return here
