"""The one interface every room backend implements (``RoomHub``), and what they share: the sockets
this worker holds per room, fan-out of each new state to them, and follower counting.

A backend stores rooms (deck, secret digest, latest state) and tells every worker about a change;
this base class turns a change into one serialised state message and hands it to each local
subscriber (``Subscriber.deliver`` keeps only the latest, so a slow phone never holds up the room).

Every public method takes a code in its stored form only (``codes.is_code``): anything else is no
room, so a hostile code never reaches a backend's keys. A room is *claimed* when its presenter first
joins; one that nobody claims within the claim timeout is dropped (creating rooms to fill the cap
then holds it for two minutes, not for the idle timeout). A presenter may *end* a room: it is
dropped and every socket of it, on every worker, is closed with ``ENDED``.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol

from attention_talk.frames.quiz import bucket
from attention_talk.rooms.codes import is_code
from attention_talk.rooms.messages import State, Tally

COUNT_DELAY = 0.05  # seconds: follower joins and leaves in a burst give one count update, not one each
TALLY_DELAY = 0.05  # seconds: answers in a burst give presenters one tally, not one each
UNAVAILABLE = 1013  # "try again later": the backend is gone; clients reconnect with backoff
UNKNOWN_ROOM = 4404  # no such room (wrong code, expired, never claimed): final, clients stop
ENDED = 4410  # the presenter ended the room ("gone"): final, clients stop


class HubUnavailable(RuntimeError):
    """The backend (Redis) cannot be reached: rooms are unavailable for now; clients retry."""


class HubFull(RuntimeError):
    """No room can be created: the hub holds its maximum."""


class Subscriber(Protocol):
    role: str

    def deliver(self, message: str) -> None:
        """Queue a state message (only the latest is kept); never blocks."""

    def drop(self, code: int, reason: str) -> None:
        """Close the socket: the hub lost its backend, or the room is gone."""

    def tell(self, kind: str, message: str) -> None:
        """Queue a message of another kind than a state (a tally; only the latest of a kind is kept)."""


@dataclass(frozen=True, slots=True)
class RoomInfo:
    deck: str
    digest: str
    state: State
    claimed: bool = False  # a presenter has joined it (it then lives for the idle timeout)


@dataclass(frozen=True, slots=True)
class NewRoom:
    code: str
    secret: str
    deck: str


@dataclass
class LocalRoom:
    """This worker's view of one room: its sockets, the latest state and the follower count, and
    what it takes to write the room back to a backend that lost it (digest, claimed)."""

    state: State
    digest: str = ""
    claimed: bool = False
    subscribers: set[Subscriber] = field(default_factory=set)
    followers_here: int = 0
    followers_total: int = 0
    count_task: asyncio.Task | None = None
    tally: tuple[int, int, Tally] | None = None  # the latest tally heard: slide, step, tally
    tally_task: asyncio.Task | None = None

    def cancel(self) -> None:
        for task in (self.count_task, self.tally_task):
            if task:
                task.cancel()


class RoomHub(ABC):
    """Create rooms, look them up, move them (``go``), end them, and join or leave them with a
    subscriber."""

    def __init__(self, idle_timeout: float, claim_timeout: float) -> None:
        self.idle_timeout, self.claim_timeout = idle_timeout, claim_timeout
        self.local: dict[str, LocalRoom] = {}

    async def start(self) -> None:  # noqa: B027 - a backend with nothing to start keeps this
        """Connect to the backend (called once per worker, at start-up)."""

    async def stop(self) -> None:
        """Close every socket and the backend connection."""
        self.drop_all(1001, "server shutting down")

    @abstractmethod
    async def create(self, deck: str) -> NewRoom:
        """A new room on ``deck`` at its first step; HubFull or HubUnavailable."""

    async def find(self, code: str) -> RoomInfo | None:
        """The room, or None (not a code, unknown or expired); HubUnavailable."""
        return await self._find(code) if is_code(code) else None

    async def go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        """Move the room and tell every worker; False when the room has expired meanwhile."""
        return is_code(code) and await self._go(code, slide, step, paused)

    async def end(self, code: str) -> bool:
        """Drop the room and close every socket of it, on every worker, with ``ENDED``; False when
        it had gone already."""
        if not is_code(code):
            return False
        ended = await self._end(code)
        await self.close_room(code, ENDED, "room ended by the presenter")  # this worker's at once
        return ended

    # ---------- questions: one answer per follower token, counted per question (slide, step) ----------

    async def answer(self, code: str, slide: int, step: int, token: str, pick: list[int]) -> Tally | None:
        """Record a follower's answer, replacing its earlier one: the tally after it. A tally marked
        revealed: the question is closed and the answer was not recorded. None: the room has gone."""
        if not is_code(code):
            return None
        tally = await self._answer(code, slide, step, token, bucket(pick))
        if tally is not None and not tally.revealed:
            self.on_tally(code, slide, step, tally)
        return tally

    async def reveal(self, code: str, slide: int, step: int) -> Tally | None:
        """Close the question (no answer is taken after it): its final tally, sent to presenters."""
        tally = await self._reveal(code, slide, step) if is_code(code) else None
        if tally is not None:
            self.on_tally(code, slide, step, tally)
        return tally

    async def tally(self, code: str, slide: int, step: int) -> Tally:
        return await self._tally(code, slide, step) if is_code(code) else Tally()

    async def mine(self, code: str, slide: int, step: int, token: str) -> list[int] | None:
        """The answer the follower with ``token`` gave, or None."""
        found = await self._mine(code, slide, step, token) if is_code(code) else None
        return [int(x) for x in found.split(",")] if found else None

    def on_tally(self, code: str, slide: int, step: int, tally: Tally) -> None:
        """A newer tally (from this worker or another): presenters get it soon, once for a burst."""
        room = self.local.get(code)
        if room is None:
            return
        old = room.tally
        if old and (old[0], old[1]) == (slide, step) and old[2].version >= tally.version and not tally.revealed:
            return
        room.tally = (slide, step, tally)
        if room.tally_task is None:
            room.tally_task = asyncio.get_running_loop().create_task(self._send_tally(room))

    async def _send_tally(self, room: LocalRoom) -> None:
        await asyncio.sleep(TALLY_DELAY)
        room.tally_task = None
        slide, step, tally = room.tally
        message = tally.message(slide, step)
        for sub in tuple(room.subscribers):
            if sub.role == "presenter":
                sub.tell("tally", message)

    @abstractmethod
    async def _answer(self, code: str, slide: int, step: int, token: str, pick: str) -> Tally | None:
        """Store ``pick`` (a bucket) as ``token``'s answer unless revealed; the tally; None: no room."""

    @abstractmethod
    async def _reveal(self, code: str, slide: int, step: int) -> Tally | None:
        """Mark the question revealed; its tally (revealed), None when the room has gone."""

    @abstractmethod
    async def _tally(self, code: str, slide: int, step: int) -> Tally:
        """The question's tally as stored."""

    @abstractmethod
    async def _mine(self, code: str, slide: int, step: int, token: str) -> str | None:
        """``token``'s stored bucket for the question."""

    @abstractmethod
    async def _find(self, code: str) -> RoomInfo | None:
        """``find`` for a code in its stored form."""

    @abstractmethod
    async def _go(self, code: str, slide: int, step: int, paused: str | bool) -> bool:
        """``go`` for a code in its stored form."""

    @abstractmethod
    async def _end(self, code: str) -> bool:
        """Delete the room and tell the other workers to close its sockets."""

    @abstractmethod
    async def _claim(self, code: str) -> bool:
        """Mark the room claimed (its presenter joined): from now on it lives for the idle timeout.
        False when it has gone meanwhile."""

    @abstractmethod
    async def _subscribe(self, code: str) -> None:
        """Start hearing about changes to ``code`` (its first local subscriber joined)."""

    @abstractmethod
    async def _unsubscribe(self, code: str) -> None:
        """Stop hearing about ``code`` (its last local subscriber left)."""

    @abstractmethod
    async def _count(self, code: str, here: int, notify: bool) -> int:
        """Record this worker's follower count for ``code``, return the room's total; ``notify``
        tells the other workers to count again."""

    async def join(self, code: str, sub: Subscriber, info: RoomInfo) -> bool:
        """Add a subscriber; it gets the current state at once. A presenter claims the room. False
        (and nothing joined) when the room has gone since it was found."""
        if sub.role == "presenter" and not await self._claim(code):
            return False
        room = self.local.get(code)
        if room is None:
            room = self.local[code] = LocalRoom(info.state, info.digest, info.claimed)
            await self._subscribe(code)
        elif info.state.seq > room.state.seq:
            room.state = info.state
        room.claimed = room.claimed or info.claimed or sub.role == "presenter"
        room.subscribers.add(sub)
        if sub.role == "follower":
            room.followers_here += 1  # the count everyone sees changes in recount, once for a burst
        sub.deliver(room.state.message(room.followers_total))
        self.recount(code, notify=True)
        return True

    async def leave(self, code: str, sub: Subscriber) -> None:
        room = self.local.get(code)
        if room is None or sub not in room.subscribers:
            return
        room.subscribers.discard(sub)
        if sub.role == "follower":
            room.followers_here -= 1
        if room.subscribers:
            self.recount(code, notify=True)
            return
        del self.local[code]
        room.cancel()
        with contextlib.suppress(HubUnavailable):
            await self._count(code, 0, notify=True)
            await self._unsubscribe(code)

    def on_state(self, code: str, state: State) -> None:
        """A new state for ``code`` (from this worker or another): send it to the local sockets."""
        room = self.local.get(code)
        if room is not None and state.seq > room.state.seq:
            room.state = state
            self.broadcast(code, room)

    def broadcast(self, code: str, room: LocalRoom) -> None:
        message = room.state.message(room.followers_total)
        for sub in tuple(room.subscribers):
            sub.deliver(message)

    def recount(self, code: str, notify: bool = False) -> None:
        """Count the followers again soon (one count for a burst of joins and leaves)."""
        room = self.local.get(code)
        if room is not None and room.count_task is None:
            room.count_task = asyncio.get_running_loop().create_task(self._recount(code, room, notify))

    async def _recount(self, code: str, room: LocalRoom, notify: bool) -> None:
        await asyncio.sleep(COUNT_DELAY)
        room.count_task = None
        try:
            total = await self._count(code, room.followers_here, notify)
        except HubUnavailable:
            return
        if total != room.followers_total and self.local.get(code) is room:
            room.followers_total = total
            self.broadcast(code, room)

    async def close_room(self, code: str, close_code: int, reason: str) -> None:
        """Close this worker's sockets of one room (it ended, or expired unclaimed) and forget it."""
        room = self.local.pop(code, None)
        if room is None:
            return
        room.cancel()
        for sub in tuple(room.subscribers):
            sub.drop(close_code, reason)
        with contextlib.suppress(HubUnavailable):
            await self._unsubscribe(code)

    def drop_all(self, code: int, reason: str) -> None:
        """Close every local socket (the backend went away, or the server stops)."""
        rooms, self.local = self.local, {}
        for room in rooms.values():
            room.cancel()
            for sub in tuple(room.subscribers):
                sub.drop(code, reason)
