"""Browser tests in a real Chromium: Debian's /usr/bin/chromium when present (Playwright cannot
download its own browsers here), else Playwright's. The app runs in a uvicorn thread: one server for
the real decks (``slides/``, sharing the API tests' store) and one for the demo decks
(``tests/browser/decks``), each started once per test run."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse

import pytest
from live_server import live_server

from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from shared_app import default_store

CHROMIUM = "/usr/bin/chromium"
DEMO_DECKS = Path(__file__).parent / "decks"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    args = {**browser_type_launch_args, "args": CHROMIUM_ARGS}
    if os.path.exists(CHROMIUM):
        args["executable_path"] = CHROMIUM
    return args


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1280, "height": 720}}


@pytest.fixture(scope="module")
def context(browser, browser_context_args):
    """One browser context per test module (pytest-playwright makes one per test): its HTTP cache
    keeps the player's ~50 ES modules, so after a module's first test a page loads in a fraction of
    the time. Each test still gets a fresh page; see ``page``."""
    context = browser.new_context(**browser_context_args)
    yield context
    context.close()


@pytest.fixture
def page(context):
    """A fresh page in the module's context. Afterwards every page the test left open is closed
    (so no old window answers a new one's BroadcastChannel hello), and localStorage (theme,
    narration, speaker timer) is cleared for every origin still shown."""
    page = context.new_page()
    yield page
    for open_page in context.pages:
        if open_page.url.startswith("http"):
            open_page.evaluate("localStorage.clear()")
        open_page.close()


@pytest.fixture(scope="session")
def server_url():
    """The talk's own decks (``slides/``)."""
    with live_server(create_app(store=default_store())) as url:
        yield url


@pytest.fixture(scope="session")
def demo_url():
    """The small fixed demo decks of ``tests/browser/decks`` (the presenting tests)."""
    with live_server(create_app(Settings(decks_dir=DEMO_DECKS))) as url:
        yield url


class PageWatch:
    """Collects console errors, page errors and any request that leaves the origin."""

    def __init__(self, page, origin: str):
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_request(req):
            netloc = urlparse(req.url).netloc
            if netloc not in ("", origin) and not req.url.startswith("data:"):
                self.foreign.append(req.url)

        page.on("request", on_request)

    def assert_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.foreign == [], self.foreign


@pytest.fixture
def watch(page, server_url):
    return PageWatch(page, urlparse(server_url).netloc)


@pytest.fixture
def open_talk(page, server_url, watch):
    """Open a deck's talk page (optionally at a hash) and wait until the player is ready."""

    def go(deck: str = "attention-step-by-step", hash_: str = ""):
        page.goto(f"{server_url}/talk/{deck}{hash_}")
        page.wait_for_selector("#player.ready", state="attached")
        return page

    return go
