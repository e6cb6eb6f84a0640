"""Shared fixtures: a test module names its deck file in a module-level ``DECK`` path; the app over
the default decks (``slides/``) is built once per test run and shared by every API test."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.web.store import Store
from shared_app import default_app, default_store


@pytest.fixture(scope="module")
def deck(request):
    """The module's deck (``DECK``), validated."""
    return load_deck(request.module.DECK)


@pytest.fixture(scope="module")
def frames(deck):
    """Every frame of the module's deck, keyed by slide id."""
    return build_deck_frames(deck)


@pytest.fixture(scope="session")
def store() -> Store:
    """Every default deck with its frames, computed once (the slow part of create_app)."""
    return default_store()


@pytest.fixture(scope="session")
def app() -> FastAPI:
    """The app with default settings over the default decks (see shared_app.py)."""
    return default_app()


@pytest.fixture(scope="session")
def client(app):
    with TestClient(app) as c:
        yield c


@pytest.fixture(scope="session")
def served():
    """``attention-talk serve`` in a subprocess (served.py): its base URL; stopped after the session."""
    from served import serve

    with serve() as url:
        yield url
