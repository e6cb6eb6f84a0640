"""The room protocol's messages (WebSocket ``/ws/rooms/{code}``, JSON text), validated with pydantic.

Client → server: ``{"type": "hello", "role": "follower"}``,
``{"type": "hello", "role": "presenter", "secret": "..."}``, then (presenters only)
``{"type": "go", "slide", "step", "paused"}`` and ``{"type": "end"}`` (end the room: every socket
of it is closed with 4410).
Server → client: ``{"type": "state", "deck", "slide", "step", "paused", "followers"}`` at once and
on every change; ``{"type": "error", "message"}`` just before the server closes the socket.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

MAX_MESSAGE_BYTES = 1024
Paused = Literal[False, "black", "white"]


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
    try:
        return INCOMING.validate_python(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        tagged = first["loc"][:1] in (("hello",), ("go",), ("end",))  # the union's tag comes first: drop it
        loc = first["loc"][1:] if tagged else first["loc"]
        field = ".".join(str(p) for p in loc) or "message"
        raise BadMessage(f"{field}: {first['msg']}") from None


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
