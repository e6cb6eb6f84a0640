"""The registry of frame builders: a name in a deck's frame spec maps to a function here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from attention_talk.frames.context import BuildContext
    from attention_talk.frames.model import FrameBody


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Builder:
    name: str
    func: Callable[[BuildContext, Any], FrameBody]
    params_model: type[BaseModel]
    doc: str


BUILDERS: dict[str, Builder] = {}


def builder(name: str, params: type[BaseModel] = NoParams):
    """Register ``func(ctx, params) -> FrameBody`` under ``name``."""

    def register(func):
        if name in BUILDERS:
            raise ValueError(f"frame builder {name!r} registered twice")
        BUILDERS[name] = Builder(name, func, params, (func.__doc__ or "").strip())
        return func

    return register
