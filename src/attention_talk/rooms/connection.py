"""One room socket, end to end: the code is normalised (``codes.normalise_code``) or refused before
anything else, the first message must be a hello (a presenter's secret compared in constant time),
then the socket gets every state of the room; a presenter may send ``go`` and ``end``.

Every refusal sends ``{"type": "error", "message"}`` and closes the socket with a code and a reason
(below); the room and its other sockets are untouched. Sending to the socket is a task of its own
that keeps only the latest state, so a slow client only ever misses states it would have
overwritten anyway.

Every frame a client sends costs a token of the socket's ``RateLimit``: each message here, and (with
``attention-talk serve``) each ping, pong and message fragment in the WebSocket protocol
(web/server.py), which hands its bucket to the app in the scope (``RATE_LIMIT_EXTENSION``).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.websockets import WebSocket, WebSocketDisconnect

from attention_talk.frames.quiz import pick_fits
from attention_talk.rooms.codes import normalise_code, secret_matches
from attention_talk.rooms.hub import ENDED, UNAVAILABLE, UNKNOWN_ROOM, HubUnavailable, RoomHub
from attention_talk.rooms.messages import Answer, BadMessage, End, Go, Hello, Reveal, error, parse, yours

# Close codes (4000-4999 are the application's own, mirroring HTTP statuses).
BAD_MESSAGE = 1008  # policy violation: malformed, not what this role may send
TOO_BIG = 1009
FORBIDDEN = 4403  # a follower's go, end or reveal, a presenter's answer, a wrong secret
CLOSED = 4409  # an answer after the reveal: not final, the page reconnects (its answer stands as it was)
HELLO_TIMEOUT = 4408
TOO_MANY = 4429
TRY_LATER = 1013  # as UNAVAILABLE: the room is full on this server; clients retry with backoff
TOO_MANY_MESSAGES = "too many messages: slow down"
RATE_LIMIT_EXTENSION = "attention_talk.rate_limit"  # scope["extensions"][...]["limit"]: the protocol's bucket
HELLO_SECONDS = 10.0
SETTLE_SECONDS = 1.0


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self.clock = rate, burst, clock
        self.tokens, self.at = burst, clock()

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def wait(self) -> float:
        """Seconds until a token is there (0 when one is)."""
        return max(0.0, (1 - self.tokens) / self.rate)


class Seats(Protocol):
    """Followers per room on this worker (rooms/capacity.py ``SocketCounts``)."""

    def seat(self, code: str) -> bool:
        """One more follower in ``code``; False when the room is full here."""

    def unseat(self, code: str) -> None: ...

    def room_full(self, code: str) -> str:
        """Why a follower is refused."""


Questions = Callable[[str, int, int], Awaitable[tuple[str, int, int] | None]]
"""(deck, slide, step) → the shape of the question asked there (frames/quiz.py ``question_shape``), or None."""


class Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


class Connection:
    """A subscriber of the hub (``deliver``, ``drop``) that speaks the protocol on one WebSocket."""

    def __init__(self, ws: WebSocket, hub: RoomHub, code: str, deck_steps: Callable[[str], list[int] | None],
                 rate: float, seats: Seats | None = None, questions: Questions | None = None) -> None:
        self.ws, self.hub, self.deck_steps, self.questions = ws, hub, deck_steps, questions
        self.code = normalise_code(code)  # None: not a code, refused before any lookup
        shared = ws.scope.get("extensions", {}).get(RATE_LIMIT_EXTENSION, {}).get("limit")
        self.limit: RateLimit = shared or RateLimit(rate, 2 * rate)
        self.seats = seats
        self.role = ""
        self.latest: str | None = None
        self.others: dict[str, str] = {}  # tell(): the latest message of each other kind
        self.token = ""
        self.closing: tuple[int, str] | None = None
        self.ready = asyncio.Event()

    def deliver(self, message: str) -> None:
        self.latest = message
        self.ready.set()

    def drop(self, code: int, reason: str) -> None:
        self.closing = (code, reason)
        self.ready.set()

    def tell(self, kind: str, message: str) -> None:
        self.others[kind] = message
        self.ready.set()

    async def run(self) -> None:
        await self.ws.accept()
        sender: asyncio.Task | None = None
        joined = seated = False
        try:
            try:
                info = await self._find()
            except Refused:
                await self._settle()
                raise
            hello = await self._hello()
            if hello.role == "presenter" and not secret_matches(hello.secret, info.digest):
                raise Refused(FORBIDDEN, "wrong secret: only the presenter may drive this room")
            self.role = hello.role
            self.token = hello.token or secrets.token_urlsafe(16) if hello.role == "follower" else ""
            seated = self._take_seat()
            sender = asyncio.get_running_loop().create_task(self._send_loop())
            joined = await self._join(info)
            await self._greet(info.deck)
            await self._receive_loop(info.deck)  # returns when the presenter ended the room
            await sender  # it closes the socket with ENDED, then returns
        except Refused as refused:
            if sender:
                sender.cancel()
            await self._refuse(refused)
        except WebSocketDisconnect:
            pass
        finally:
            if sender:
                sender.cancel()
            if joined:
                await self.hub.leave(self.code, self)
            if seated and self.seats:
                self.seats.unseat(self.code)

    def _take_seat(self) -> bool:
        """A follower takes one of the room's seats on this worker (a presenter needs none, so a full
        room never locks its presenter out); Refused when there is none left."""
        if self.role != "follower" or self.seats is None:
            return False
        if not self.seats.seat(self.code):
            raise Refused(TRY_LATER, self.seats.room_full(self.code))
        return True

    async def _settle(self) -> None:
        """Before refusing at once (unknown room, rooms unavailable), give the client a moment to send
        its hello: a client that sends right after connecting then reads the refusal instead of
        failing to send on a socket already closed."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.ws.receive(), SETTLE_SECONDS)

    async def _find(self):
        if self.code is None:
            raise Refused(UNKNOWN_ROOM, "unknown room: not a room code (nine characters: 0-9, A-Z without I L O U)")
        try:
            info = await self.hub.find(self.code)
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None
        if info is None:
            raise Refused(UNKNOWN_ROOM, f"unknown room {self.code} (wrong code, or it expired)")
        return info

    async def _join(self, info) -> bool:
        try:
            if await self.hub.join(self.code, self, info):
                return True
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None
        raise Refused(UNKNOWN_ROOM, f"unknown room {self.code} (it expired)")

    async def _next_message(self, deck: str | None = None) -> Hello | Go | End | None:
        """The next message, parsed, or None when the client has gone; Refused when it may not send it."""
        message = await self.ws.receive()
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        if not self.limit.allow():
            raise Refused(TOO_MANY, TOO_MANY_MESSAGES)
        data = message.get("text") if message.get("text") is not None else message.get("bytes") or b""
        try:
            return parse(data)
        except BadMessage as exc:
            raise Refused(TOO_BIG if str(exc).startswith("message too large") else BAD_MESSAGE, str(exc)) from None

    async def _hello(self) -> Hello:
        try:
            msg = await asyncio.wait_for(self._next_message(), HELLO_SECONDS)
        except TimeoutError:
            raise Refused(HELLO_TIMEOUT, f"no hello within {HELLO_SECONDS:g} s") from None
        if not isinstance(msg, Hello):
            raise Refused(BAD_MESSAGE, "the first message must be a hello")
        return msg

    async def _receive_loop(self, deck: str) -> None:
        """Moves (and the end) from a presenter until the room ends; Refused for anything else."""
        while True:
            msg = await self._next_message()
            if isinstance(msg, Hello):
                raise Refused(BAD_MESSAGE, "hello: already said")
            if isinstance(msg, Answer | Reveal):
                await self._question_message(deck, msg)
                continue
            if self.role != "presenter":
                raise Refused(FORBIDDEN, f"{msg.type}: followers follow; only the presenter may move or end the room")
            if isinstance(msg, End):
                await self._end()
                return
            steps = self.deck_steps(deck) or []
            self._check_bounds(msg, steps)
            await self._reveal_before(deck, msg, steps)
            if not await self._hub_go(msg):
                raise Refused(UNKNOWN_ROOM, f"unknown room {self.code} (it expired)")
            await self._greet(deck, msg.slide, msg.step)  # a question step: its tally so far

    async def _hub_go(self, msg: Go) -> bool:
        try:
            return await self.hub.go(self.code, msg.slide, msg.step, msg.paused)
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None

    async def _end(self) -> None:
        """End the room: the hub closes every socket of it (this one too) with ENDED."""
        try:
            ended = await self.hub.end(self.code)
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None
        if not ended:
            raise Refused(UNKNOWN_ROOM, f"unknown room {self.code} (it expired)")
        self.drop(ENDED, "room ended by the presenter")  # the hub closed it already; to be sure

    # ---------- questions: a follower's answer, the presenter's reveal ----------

    async def _asked(self, deck: str, msg: Answer | Reveal) -> tuple:
        """The shape of the question on the room's current step, which ``msg`` must name; Refused."""
        room = self.hub.local.get(self.code)
        where = f"slide {msg.slide} step {msg.step}"
        if room is None or (room.state.slide, room.state.step) != (msg.slide, msg.step):
            raise Refused(BAD_MESSAGE, f"{msg.type}: {where} is not the room's current step")
        shape = await self.questions(deck, msg.slide, msg.step) if self.questions else None
        if shape is None:
            raise Refused(BAD_MESSAGE, f"{msg.type}: {where} asks no question")
        return shape

    async def _question_message(self, deck: str, msg: Answer | Reveal) -> None:
        if isinstance(msg, Reveal) and self.role != "presenter":
            raise Refused(FORBIDDEN, "reveal: only the presenter may reveal the answer")
        if isinstance(msg, Answer) and self.role != "follower":
            raise Refused(FORBIDDEN, "answer: the presenter asks; only followers answer")
        shape = await self._asked(deck, msg)
        try:
            if isinstance(msg, Reveal):
                tally = await self.hub.reveal(self.code, msg.slide, msg.step)
            elif (why := pick_fits(shape, msg.pick)) is not None:
                raise Refused(BAD_MESSAGE, f"pick: out of range for this {shape[0]} question: {why}")
            else:
                tally = await self.hub.answer(self.code, msg.slide, msg.step, self.token, msg.pick)
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None
        if tally is None:
            raise Refused(UNKNOWN_ROOM, f"unknown room {self.code} (it expired)")
        if isinstance(msg, Answer):
            if tally.revealed:
                raise Refused(CLOSED, "answer: the presenter revealed this question; answers are closed")
            self.tell("yours", yours(msg.slide, msg.step, msg.pick))

    async def _reveal_before(self, deck: str, msg: Go, steps: list[int]) -> None:
        """A move onto a question's reveal step (the step right after it) closes that question first,
        whichever presenter socket moves (the speaker view, the phone remote): the hub's reveal is
        idempotent, and it reads only the deck, never this worker's idea of where the room was."""
        if self.questions is None:
            return
        if msg.step > 1:
            before = (msg.slide, msg.step - 1)
        elif msg.slide > 1:
            before = (msg.slide - 1, steps[msg.slide - 2])
        else:
            return
        if await self.questions(deck, *before) is None:
            return
        try:
            await self.hub.reveal(self.code, *before)
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None

    async def _greet(self, deck: str, slide: int | None = None, step: int | None = None) -> None:
        """On joining (or moving to) a question step: a presenter gets its tally, a follower its answer."""
        room = self.hub.local.get(self.code)
        if room is None or self.questions is None:
            return
        slide, step = slide or room.state.slide, step or room.state.step
        try:
            if await self.questions(deck, slide, step) is None:
                return
            if self.role == "presenter":
                self.tell("tally", (await self.hub.tally(self.code, slide, step)).message(slide, step))
            elif (pick := await self.hub.mine(self.code, slide, step, self.token)) is not None:
                self.tell("yours", yours(slide, step, pick))
        except HubUnavailable:
            raise Refused(UNAVAILABLE, "rooms unavailable: reconnecting") from None

    @staticmethod
    def _check_bounds(msg: Go, steps: list[int]) -> None:
        if msg.slide > len(steps):
            raise Refused(BAD_MESSAGE, f"slide: {msg.slide} is beyond the deck's {len(steps)} slides")
        if msg.step > steps[msg.slide - 1]:
            raise Refused(BAD_MESSAGE, f"step: slide {msg.slide} has {steps[msg.slide - 1]} steps")

    async def _send_loop(self) -> None:
        with contextlib.suppress(Exception):
            while True:
                await self.ready.wait()
                self.ready.clear()
                if self.closing:
                    await self.ws.close(*self.closing)
                    return
                message, self.latest = self.latest, None
                if message is not None:
                    await self.ws.send_text(message)
                while self.others:
                    await self.ws.send_text(self.others.pop(next(iter(self.others))))

    async def _refuse(self, refused: Refused) -> None:
        with contextlib.suppress(Exception):
            await self.ws.send_text(error(refused.message))
            await self.ws.close(refused.code, refused.message[:120])
