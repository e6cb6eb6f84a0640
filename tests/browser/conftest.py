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
    keeps the player's ~50 ES modules and the frames between the module's tests, instead of
    fetching them again for every test. Each test still gets a fresh page; see ``page``."""
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


@pytest.fixture(scope="module")
def kept_talks(browser, browser_context_args):
    """The ``talk`` fixture's pages, by deck, kept open across a module's tests. They live in a
    context of their own: in the module's context they would answer the BroadcastChannel hello of
    a fresh page of the same deck, which would then adopt their step."""
    context = browser.new_context(**browser_context_args)
    yield context, {}
    context.close()


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
        self.page = page
        self.errors: list[str] = []
        self.foreign: list[str] = []

        def on_request(req):
            netloc = urlparse(req.url).netloc
            if netloc not in ("", origin) and not req.url.startswith("data:"):
                self.foreign.append(req.url)

        self.handlers = {"console": lambda m: self.errors.append(m.text) if m.type == "error" else None,
                         "pageerror": lambda e: self.errors.append(str(e)),
                         "request": on_request}
        for event, handler in self.handlers.items():
            page.on(event, handler)

    def detach(self) -> None:
        for event, handler in self.handlers.items():
            self.page.remove_listener(event, handler)

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


# A kept talk page, made ready for the next test: wait until the player is at ``hash`` and every
# transition has ended (as after a fresh load), then report anything left open.
SETTLE_JS = """async (hash) => {
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  const p = window.attentionTalk.player;
  for (const until = performance.now() + 5000; `#/${p.state.slide}/${p.state.step}` !== hash; await frame()) {
    if (performance.now() > until) return `the player never reached ${hash}`;
  }
  // and the stage holds that step's frame (a frame not yet fetched comes after the position)
  const root = document.getElementById("player");
  const drawn = () => root.dataset.drawn === `${p.slides[p.state.slide - 1].id}/${p.state.step}`;
  for (const until = performance.now() + 60000; !drawn(); await frame()) {
    if (performance.now() > until) return `${hash} was never drawn`;
  }
  await frame(); await frame();
  const running = () => document.getAnimations().filter((a) => a.playState === "running" || a.pending);
  for (const until = performance.now() + 3000; running().length; await frame()) {
    if (performance.now() > until) {
      return "transitions still running after 3 s: " + running().slice(0, 3).map((a) =>
        `${a.transitionProperty ?? a.animationName} of ${a.effect?.target?.outerHTML.slice(0, 80)}`).join("; ");
    }
  }
  const shown = (el) => { const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden"; };
  const left = [".derivation-panel", "#help", "#overview", ".jump-prompt", ".blackout"]
    .filter((sel) => [...document.querySelectorAll(sel)].some(shown));
  return left.length ? `still open: ${left}` : "";
}"""


class Talk:
    """``open_talk`` for tests that only step, jump, click, focus and read: one talk page per deck
    stays open across the module's tests (loading a talk takes a second or more), and each test
    starts it at its hash with nothing focused and nothing open (Escape closes the derivation
    panel, the help and the overview), transitions finished. A test that types into the page,
    changes a widget, reloads or goes back in history uses ``open_talk`` (a fresh page) instead.
    ``assert_clean`` checks what this test's pages logged and requested."""

    def __init__(self, context, base: str, kept: dict):
        self.context, self.base, self.kept = context, base, kept
        self.watches: list[PageWatch] = []

    def open(self, deck: str = "attention-step-by-step", hash_: str = "#/1/1"):
        page = self.kept.get(deck)
        fresh = page is None or page.is_closed()
        if fresh:
            page = self.kept[deck] = self.context.new_page()
        self.watches.append(PageWatch(page, urlparse(self.base).netloc))
        if fresh:
            page.goto(f"{self.base}/talk/{deck}{hash_}")
            page.wait_for_selector("#player.ready", state="attached")
        else:
            page.evaluate("() => document.activeElement?.blur()")
            page.keyboard.press("Escape")
            page.evaluate("h => { if (location.hash !== h) location.hash = h; }", hash_)
        problem = page.evaluate(SETTLE_JS, hash_)
        assert not problem, problem
        return page

    def assert_clean(self) -> None:
        for watch in self.watches:
            watch.assert_clean()

    def close(self, failed: bool) -> None:
        for watch in self.watches:
            watch.detach()
        if failed:  # the next test starts from a fresh load, not from whatever this one left
            for deck, page in list(self.kept.items()):
                if any(w.page is page for w in self.watches):
                    del self.kept[deck]
                    page.close()


@pytest.fixture
def talk(kept_talks, server_url, request):
    context, kept = kept_talks
    talk = Talk(context, server_url, kept)
    failed_before = request.session.testsfailed
    yield talk
    talk.close(failed=request.session.testsfailed > failed_before)
