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
