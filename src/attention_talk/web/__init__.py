"""The web app: FastAPI routes, Jinja pages and the static player.

``create_app`` is imported on first use, so ``attention_talk.web.settings`` (read by every CLI
command) does not import the whole app."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attention_talk.web.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str):
    if name == "create_app":
        from attention_talk.web.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
