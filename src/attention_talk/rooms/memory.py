"""The in-process hub (the default): rooms live in this worker's memory, so every socket of a room
must reach the same process (``ATTENTION_TALK_WORKERS=1``, or Redis for more).

A room nobody has claimed (no presenter joined) lives ``claim_timeout`` seconds from its creation,
whoever else is connected; a claimed one lives until it has been idle (no move, nobody connected)
for ``idle_timeout``. Expired rooms are swept on every ``create``, before the cap is checked."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field, replace

from attention_talk.rooms.codes import digest, new_code, new_secret
from attention_talk.rooms.hub import UNKNOWN_ROOM, HubFull, NewRoom, RoomHub, RoomInfo
from attention_talk.rooms.messages import State, Tally


@dataclass
class _Room:
    digest: str
    state: State
    created: float
    last_active: float
    claimed: bool = False
    answers: dict[tuple[int, int], dict[str, str]] = field(default_factory=dict)  # question → token → pick
    counts: dict[tuple[int, int], Counter] = field(default_factory=dict)
    revealed: set[tuple[int, int]] = field(default_factory=set)
    versions: Counter = field(default_factory=Counter)

    def tally(self, q: tuple[int, int]) -> Tally:
        counts = self.counts.get(q, Counter())
        return Tally(len(self.answers.get(q, ())), {k: n for k, n in counts.items() if n}, q in self.revealed,
                     self.versions[q])


class InProcessHub(RoomHub):
    def __init__(self, idle_timeout: float, max_rooms: int = 1000, clock=time.monotonic,
                 claim_timeout: float = 120.0) -> None:
        super().__init__(idle_timeout, claim_timeout)
        self.max_rooms = max_rooms
        self.clock = clock
        self.rooms: dict[str, _Room] = {}

    def _expired(self, code: str, room: _Room) -> bool:
        now = self.clock()
        if not room.claimed:
            return now - room.created > self.claim_timeout
        return code not in self.local and now - room.last_active > self.idle_timeout

    async def _sweep(self) -> None:
        for code in [c for c, r in self.rooms.items() if self._expired(c, r)]:
            await self._drop(code)

    async def _drop(self, code: str) -> None:
        """Forget an expired room; sockets still open on it (followers of a room nobody claimed) close."""
        del self.rooms[code]
        await self.close_room(code, UNKNOWN_ROOM, f"unknown room {code} (no presenter joined it)")

    async def create(self, deck: str) -> NewRoom:
        await self._sweep()
        if len(self.rooms) >= self.max_rooms:
            raise HubFull(f"{self.max_rooms} rooms are open (ATTENTION_TALK_MAX_ROOMS); try again later")
        code, secret = new_code(), new_secret()
        while code in self.rooms:  # pragma: no cover - 1 in 2**45
            code = new_code()
        now = self.clock()
        self.rooms[code] = _Room(digest(secret), State(deck), now, now)
        return NewRoom(code, secret, deck)

    async def _find(self, code: str) -> RoomInfo | None:
        room = self.rooms.get(code)
        if room is None:
            return None
        if self._expired(code, room):
            await self._drop(code)
            return None
        room.last_active = self.clock()
        return RoomInfo(room.state.deck, room.digest, room.state, room.claimed)

    async def _go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        room = self.rooms.get(code)
        if room is None:
            return False
        room.state = replace(room.state, slide=slide, step=step, paused=paused, seq=room.state.seq + 1)
        room.last_active = self.clock()
        self.on_state(code, room.state)
        return True

    async def _end(self, code: str) -> bool:
        return self.rooms.pop(code, None) is not None

    async def _claim(self, code: str) -> bool:
        room = self.rooms.get(code)
        if room is None or self._expired(code, room):
            return False
        room.claimed, room.last_active = True, self.clock()
        return True

    async def _subscribe(self, code: str) -> None:
        pass

    async def _unsubscribe(self, code: str) -> None:
        if code in self.rooms:
            self.rooms[code].last_active = self.clock()  # idle from the moment the last socket left

    async def _count(self, code: str, here: int, notify: bool) -> int:
        return here

    async def _answer(self, code: str, slide: int, step: int, token: str, pick: str) -> Tally | None:
        room, q = self.rooms.get(code), (slide, step)
        if room is None:
            return None
        if q not in room.revealed:
            answers, counts = room.answers.setdefault(q, {}), room.counts.setdefault(q, Counter())
            if (old := answers.get(token)) is not None:
                counts[old] -= 1
            answers[token] = pick
            counts[pick] += 1
            room.versions[q] += 1
            room.last_active = self.clock()
        return room.tally(q)

    async def _reveal(self, code: str, slide: int, step: int) -> Tally | None:
        room = self.rooms.get(code)
        if room is None:
            return None
        room.revealed.add((slide, step))
        return room.tally((slide, step))

    async def _tally(self, code: str, slide: int, step: int) -> Tally:
        room = self.rooms.get(code)
        return room.tally((slide, step)) if room else Tally()

    async def _mine(self, code: str, slide: int, step: int, token: str) -> str | None:
        room = self.rooms.get(code)
        return room.answers.get((slide, step), {}).get(token) if room else None
