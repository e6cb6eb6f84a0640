"""The room protocol's messages (WebSocket ``/ws/rooms/{code}``, JSON text), validated with pydantic.

Client → server: ``{"type": "hello", "role": "follower"}``,
``{"type": "hello", "role": "presenter", "secret": "..."}``, then (presenters only)
``{"type": "go", "slide", "step", "paused"}`` and ``{"type": "end"}`` (end the room: every socket
of it is closed with 4410).
Server → client: ``{"type": "state", "deck", "slide", "step", "paused", "followers"}`` at once and
on every change; ``{"type": "error", "message"}`` just before the server closes the socket.

Strict both ways: a field takes its own JSON type only (``"paused": 0`` is not ``false``, ``"slide":
"2"`` and ``true`` are not numbers), an object may not name a key twice (JSON parsers disagree on
which value wins), and unknown keys are refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
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


class Go(ClientMessage):
    type: Literal["go"]
    slide: int = Field(ge=1, le=100_000)
    step: int = Field(ge=1, le=100_000)
    paused: Paused = False


# Ending a room (presenters only): no fields but its type.
class End(ClientMessage):
    type: Literal["end"]


INCOMING = TypeAdapter(Annotated[Hello | Go | End, Field(discriminator="type")])


class BadMessage(ValueError):
    """A message refused: ``str(exc)`` says which field and why (never echoing the input)."""


def parse(text: str | bytes) -> Hello | Go | End:
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
        tagged = first["loc"][:1] in (("hello",), ("go",), ("end",))  # the union's tag comes first: drop it
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


def error(message: str) -> str:
    return orjson.dumps({"type": "error", "message": message}).decode()
