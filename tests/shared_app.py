"""The app over the default decks (``slides/``), built once per test run: Store.load computes every
frame of every deck, which takes seconds. The ``store`` and ``app`` fixtures (conftest.py) return
these; a module that needs the app at import time (test_web_schema) calls ``default_app()``."""

from __future__ import annotations

from functools import cache

from fastapi import FastAPI

from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from attention_talk.web.store import Store


@cache
def default_store() -> Store:
    return Store.load(Settings().decks_dir)


@cache
def default_app() -> FastAPI:
    """Default settings, default decks. A test that needs other settings builds its own app with
    ``create_app(Settings(...), store=default_store())``, which is quick."""
    return create_app(store=default_store())


def all_routes(app: FastAPI) -> list[tuple[str, object]]:
    """(full path, route) for every route of ``app``, through included routers and mounts (a mount
    once, by its own path)."""
    import fastapi.routing

    iterate = getattr(fastapi.routing, "iter_route_contexts", None)  # FastAPI ≥ 0.160 keeps routers nested
    if iterate is None:  # pragma: no cover - older FastAPI flattens included routers
        return [(route.path, route) for route in app.routes]
    return [(context.path, context.original_route) for context in iterate(app.routes)]
