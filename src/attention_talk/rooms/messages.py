"""The room protocol's messages (WebSocket ``/ws/rooms/{code}``, JSON text), validated with pydantic.

Client → server: ``{"type": "hello", "role": "follower"}``,
``{"type": "hello", "role": "presenter", "secret": "..."}``, then (presenters only)
``{"type": "go", "slide", "step", "paused"}``, ``{"type": "end"}`` (end the room: every socket
of it is closed with 4410) and ``{"type": "reveal", "slide", "step"}`` (close the question asked on
that step); followers may send ``{"type": "answer", "slide", "step", "pick"}`` (frames/quiz.py's
pick encoding) for the question on the room's current step. A follower's hello may carry a
``token``: a random id its page keeps, so that after a reconnect its answer is still its own.
Server → client: ``{"type": "state", "deck", "slide", "step", "paused", "followers"}`` at once and
on every change; to presenters, ``{"type": "tally", "slide", "step", "answered", "counts",
"revealed"}`` (counts: pick → how many) when the answers to the current question change; to a
follower, ``{"type": "yours", "slide", "step", "pick"}`` (its answer as the room holds it);
``{"type": "error", "message"}`` just before the server closes the socket.

Strict both ways: a field takes its own JSON type only (``"paused": 0`` is not ``false``, ``"slide":
"2"`` and ``true`` are not numbers), an object may not name a key twice (JSON parsers disagree on
which value wins), and unknown keys are refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, TypeAdapter, ValidationError

MAX_MESSAGE_BYTES = 1024
PAUSED = (False, "black", "white")


def same_type_as(allowed: tuple) -> BeforeValidator:
    """A Literal compares with ``==``, so ``0`` and ``0.0`` pass for ``False`` (and ``1`` for
    ``True``): refuse a value equal to an allowed one but of another JSON type."""

    def check(value: Any) -> Any:
        if any(value == a and type(value) is not type(a) for a in allowed):
            raise ValueError(f"{orjson.dumps(value).decode()} is not {_listed(allowed)}")
        return value

    return BeforeValidator(check)


def _listed(allowed: tuple) -> str:
    return ", ".join(orjson.dumps(a).decode() for a in allowed)


Paused = Annotated[Literal[False, "black", "white"], same_type_as(PAUSED)]


class ClientMessage(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class Hello(ClientMessage):
    type: Literal["hello"]
    role: Literal["follower", "presenter"]
    secret: str | None = Field(default=None, min_length=1, max_length=128)
    token: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_-]{16,64}$")


class Go(ClientMessage):
    type: Literal["go"]
    slide: int = Field(ge=1, le=100_000)
    step: int = Field(ge=1, le=100_000)
    paused: Paused = False


# Ending a room (presenters only): no fields but its type.
class End(ClientMessage):
    type: Literal["end"]


MAX_PICK = 99  # the largest number in a pick (frames/quiz.py: at most 24 choices, 21 slider positions)


class Answer(ClientMessage):
    type: Literal["answer"]
    slide: int = Field(ge=1, le=100_000)
    step: int = Field(ge=1, le=100_000)
    pick: list[Annotated[int, Field(ge=0, le=MAX_PICK)]] = Field(min_length=1, max_length=8)


class Reveal(ClientMessage):
    type: Literal["reveal"]
    slide: int = Field(ge=1, le=100_000)
    step: int = Field(ge=1, le=100_000)


INCOMING = TypeAdapter(Annotated[Hello | Go | End | Answer | Reveal, Field(discriminator="type")])
TAGS = (("hello",), ("go",), ("end",), ("answer",), ("reveal",))


class BadMessage(ValueError):
    """A message refused: ``str(exc)`` says which field and why (never echoing the input)."""


def parse(text: str | bytes) -> Hello | Go | End | Answer | Reveal:
    """One client message, or BadMessage. Size is checked first, then JSON, then the fields."""
    size = len(text.encode() if isinstance(text, str) else text)
    if size > MAX_MESSAGE_BYTES:
        raise BadMessage(f"message too large: {size} bytes, at most {MAX_MESSAGE_BYTES}")
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise BadMessage("not JSON: a message is one JSON object") from None
    json.loads(text, object_pairs_hook=_refuse_duplicate_keys)  # valid JSON by now; only keys are checked
    try:
        return INCOMING.validate_python(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        tagged = first["loc"][:1] in TAGS  # the union's tag comes first: drop it
        loc = first["loc"][1:] if tagged else first["loc"]
        field = ".".join(str(p) for p in loc) or "message"
        raise BadMessage(f"{field}: {first['msg'].removeprefix('Value error, ')}") from None


def _refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise BadMessage(f"{key[:40]}: given twice; a key may appear once")
        seen.add(key)
    return {}  # the values are orjson's; this parse only looks at the keys


@dataclass(frozen=True, slots=True)
class State:
    """Where a room is: the deck and its (1-based) slide and step, and whether the screen is blanked."""

    deck: str
    slide: int = 1
    step: int = 1
    paused: Literal[False, "black", "white"] = False
    seq: int = 0  # bumped on every go: workers drop a state older than the one they have

    def message(self, followers: int) -> str:
        return orjson.dumps({"type": "state", "deck": self.deck, "slide": self.slide, "step": self.step,
                             "paused": self.paused, "followers": followers}).decode()


@dataclass(frozen=True, slots=True)
class Tally:
    """The answers to one question: how many answered, how many gave each pick, whether it is revealed."""

    answered: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    revealed: bool = False
    version: int = 0  # bumped by every answer: a worker drops a tally older than the one it has

    def message(self, slide: int, step: int) -> str:
        return orjson.dumps({"type": "tally", "slide": slide, "step": step, "answered": self.answered,
                             "counts": self.counts, "revealed": self.revealed}).decode()


def yours(slide: int, step: int, pick: list[int]) -> str:
    return orjson.dumps({"type": "yours", "slide": slide, "step": step, "pick": pick}).decode()


def error(message: str) -> str:
    return orjson.dumps({"type": "error", "message": message}).decode()
