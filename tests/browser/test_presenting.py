"""Presenting in real Chromium: the speaker view follows the talk both ways (BroadcastChannel),
overview, blackout, jump, every key of the help overlay, and a print view whose PDF has one page
per step. Runs on a small fixed deck (tests/browser/decks) so the talk's own content can grow."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

from attention_talk.web.keys import KEYS

DEMO = "presenting-demo"  # tests/browser/decks, served by the demo_url fixture (conftest.py)
# (slide id, caption) of every step of the demo deck, in order.
STEPS = [("opening", "Demo caption a.a"), ("map", "Demo caption b.a"), ("map", "Demo caption b.b"),
         ("map", "Demo caption b.c"), ("words", "Demo caption c.a"), ("words", "Demo caption c.b"),
         ("mask-again", "Demo caption d.a"), ("mask-again", "Demo caption d.b"), ("closing", "Demo caption e.a")]


class Watch:
    """Console errors, page errors and requests that leave the origin, for every page of a context."""

    def __init__(self, origin: str):
        self.origin = origin
        self.errors: list[str] = []
        self.foreign: list[str] = []

    def attach(self, page):
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.foreign.append(r.url)
                if urlparse(r.url).netloc not in ("", self.origin) and not r.url.startswith("data:") else None)
        return page

    def assert_clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.foreign == [], self.foreign


@pytest.fixture
def watch(page, demo_url):
    w = Watch(urlparse(demo_url).netloc)
    w.attach(page)
    page.context.on("page", w.attach)
    yield w
    page.context.remove_listener("page", w.attach)  # the context outlives the test


def open_talk(page, base: str, hash_: str = "", deck: str = DEMO):
    page.goto(f"{base}/talk/{deck}{hash_}")
    page.wait_for_selector("#player.ready", state="attached")
    return page


def open_speaker(page, base: str, deck: str = DEMO):
    page.goto(f"{base}/talk/{deck}/presenter")
    page.wait_for_selector("#presenter.ready", state="attached")
    return page


def position(page, root: str = "#player") -> tuple[str, str]:
    """(data-slide, data-step) of ``root``, in one round trip."""
    return tuple(page.evaluate("r => { const el = document.querySelector(r); "
                               "return [el.getAttribute('data-slide'), el.getAttribute('data-step')]; }", root))


def wait_position(page, slide: str, step: int, root: str = "#player") -> None:
    page.wait_for_function(
        "([root, slide, step]) => { const el = document.querySelector(root);"
        " return el.dataset.slide === slide && el.dataset.step === step; }",
        arg=[root, slide, str(step)], timeout=15_000)


# ---------------------------------------------------------------------------------------------
# speaker view


def test_speaker_view_and_talk_follow_each_other(page, demo_url, watch) -> None:
    audience = open_talk(page, demo_url)
    speaker = open_speaker(page.context.new_page(), demo_url)

    speaker.keyboard.press("PageDown")  # the clicker, in the speaker view
    wait_position(audience, "map", 1)
    assert audience.evaluate("location.hash") == "#/2/1"
    audience.keyboard.press("ArrowRight")  # and back the other way
    wait_position(speaker, "map", 2, "#presenter")
    assert speaker.locator("#presenter-position").inner_text() == "slide 2/5 · step 2/3"
    assert "This note belongs to the map slide." in speaker.locator("#speaker-notes").inner_text()
    assert speaker.locator("#upcoming-title").inner_text() == "Words only"

    # Now: what the audience sees; next: the following step, drawn from its frame.
    assert speaker.locator("#preview-current .caption").inner_text() == "Demo caption b.b"
    assert speaker.locator("#preview-next .caption").inner_text() == "Demo caption b.c"
    next_map = speaker.locator('#preview-next .slide[data-slide-id="map"] [data-tensor="map"]')
    assert next_map.locator(".cell.masked").count() > 0
    assert speaker.locator('#preview-current .slide[data-slide-id="map"] [data-tensor="map"] .cell').count() > 0

    speaker.reload()  # mid-talk: catches up at once
    speaker.wait_for_selector("#presenter.ready", state="attached")
    wait_position(speaker, "map", 2, "#presenter")
    assert speaker.locator("#preview-next .caption").inner_text() == "Demo caption b.c"

    audience.reload()  # the audience window too
    audience.wait_for_selector("#player.ready", state="attached")
    speaker.keyboard.press("PageDown")
    wait_position(audience, "map", 3)
    speaker.keyboard.press("PageUp")
    wait_position(audience, "map", 2)
    watch.assert_clean()


def test_late_speaker_view_catches_up_and_blackout_is_shared(page, demo_url, watch) -> None:
    audience = open_talk(page, demo_url, "#/4/2")
    speaker = open_speaker(page.context.new_page(), demo_url)
    wait_position(speaker, "mask-again", 2, "#presenter")
    assert speaker.locator("#upcoming-title").inner_text() == "Thank you"

    speaker.keyboard.press(".")  # blackout from the clicker in the speaker view
    audience.wait_for_selector('.blackout[data-blackout="black"]', state="visible")
    assert speaker.locator("#preview-current .blackout").is_visible()
    audience.keyboard.press("x")  # any key returns, without moving
    audience.wait_for_selector(".blackout", state="hidden")
    speaker.wait_for_selector("#preview-current .blackout", state="hidden")
    assert position(audience) == ("mask-again", "2")

    audience.keyboard.press("End")  # the last step: the next preview says so and is not blank
    wait_position(speaker, "closing", 1, "#presenter")
    assert speaker.locator("#preview-next.at-end .end-label").is_visible()
    assert speaker.locator("#preview-next .caption").inner_text() == "Demo caption e.a"
    watch.assert_clean()


def test_two_windows_starting_together_agree_on_the_older_ones_step(page, demo_url) -> None:
    """Both say hello at once: only the older answers, so they do not swap their steps."""
    open_talk(page, demo_url)
    result = page.evaluate("""async () => {
      const { Player } = await import("/static/js/player.js");
      const { SyncController } = await import("/static/js/controllers/sync.js");
      const manifest = { ...window.attentionTalk.player.manifest, id: "sync-probe" };
      const older = new Player(manifest), newer = new Player(manifest);
      older.go(4, 2); newer.go(2, 1);
      const a = new SyncController(older), b = new SyncController(newer);
      a.since = 1000; b.since = 2000;
      a.bind(); b.bind();
      await new Promise((r) => setTimeout(r, 300));
      const states = [older.state, newer.state].map((s) => `${s.slide}/${s.step}`);
      newer.next();
      await new Promise((r) => setTimeout(r, 300));
      states.push(`${older.state.slide}/${older.state.step}`);
      a.destroy(); b.destroy();
      return states;
    }""")
    assert result == ["4/2", "4/2", "5/1"]


def test_speaker_view_timer_pauses_and_resets(page, demo_url, watch) -> None:
    speaker = open_speaker(page, demo_url)
    elapsed = speaker.locator("#elapsed")
    assert re.fullmatch(r"\d+:\d\d", elapsed.inner_text())
    assert re.fullmatch(r"\d\d:\d\d(\s?[AP]M)?", speaker.locator("#clock").inner_text())
    speaker.click("#timer-pause")
    assert speaker.locator("#timer-pause").inner_text() == "Resume"
    frozen = elapsed.inner_text()
    speaker.wait_for_timeout(1200)
    assert elapsed.inner_text() == frozen
    speaker.click("#timer-reset")
    assert elapsed.inner_text() == "0:00"
    speaker.click("#timer-pause")
    assert speaker.locator("#timer-pause").inner_text() == "Pause"
    speaker.keyboard.press("Space")  # a clicker's key after a click steps the talk, not the button
    wait_position(speaker, "map", 1, "#presenter")
    assert speaker.locator("#timer-pause").inner_text() == "Pause"
    watch.assert_clean()


def test_a_deck_can_hide_progress_but_the_speaker_view_still_shows_position(page, demo_url) -> None:
    open_talk(page, demo_url, deck="presenting-quiet")
    assert page.locator(".progress").count() == 0
    assert page.locator("#position").count() == 0
    open_speaker(page, demo_url, deck="presenting-quiet")
    assert page.locator("#presenter-position").inner_text() == "slide 1/2 · step 1/2"


# ---------------------------------------------------------------------------------------------
# moving around


def test_overview_arrows_and_enter_jump(page, demo_url, watch) -> None:
    open_talk(page, demo_url, "#/2/2")
    page.keyboard.press("o")
    overview = page.locator("#overview")
    assert overview.is_visible()
    items = overview.locator(".overview-item")
    assert items.count() == 5
    assert overview.locator(".overview-item.current").get_attribute("data-slide") == "2"
    assert overview.locator(".overview-item.current").get_attribute("aria-current") == "step"
    assert "The attention map" in overview.locator(".overview-item.current").inner_text()
    # thumbnails are drawn from frames (the slide's last step), not left blank
    assert overview.locator('[data-slide="2"] [data-tensor="map"] .cell.masked').count() > 0
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert overview.locator(".overview-item.selected").get_attribute("data-slide") == "4"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Enter")
    assert overview.is_hidden()
    assert position(page) == ("words", "1")
    page.keyboard.press("o")
    page.keyboard.press("Escape")
    assert overview.is_hidden()
    assert position(page) == ("words", "1")
    page.keyboard.press("o")
    overview.locator('.overview-item[data-slide="5"]').click()
    assert position(page) == ("closing", "1")
    watch.assert_clean()


def test_blackout_and_any_key_returns(page, demo_url, watch) -> None:
    open_talk(page, demo_url, "#/2/1")
    layer = page.locator(".blackout")
    page.keyboard.press("b")
    assert layer.is_visible()
    assert layer.get_attribute("data-blackout") == "black"
    assert page.evaluate("getComputedStyle(document.querySelector('.blackout')).backgroundColor") == "rgb(0, 0, 0)"
    page.keyboard.press("ArrowRight")  # returns; does not also step
    assert layer.is_hidden()
    assert position(page) == ("map", "1")
    page.keyboard.press("w")
    assert page.evaluate("getComputedStyle(document.querySelector('.blackout')).backgroundColor") == \
        "rgb(255, 255, 255)"
    page.keyboard.press("w")
    assert layer.is_hidden()
    watch.assert_clean()


def test_g_number_enter_jumps(page, demo_url, watch) -> None:
    open_talk(page, demo_url)
    page.keyboard.press("g")
    prompt = page.locator(".jump-prompt")
    assert prompt.is_visible()
    page.keyboard.press("3")
    assert prompt.locator(".jump-digits").inner_text() == "3"
    page.keyboard.press("Enter")
    assert prompt.is_hidden()
    assert position(page) == ("words", "1")
    assert page.evaluate("location.hash") == "#/3/1"
    page.keyboard.press("g")
    page.keyboard.press("1")
    page.keyboard.press("Escape")  # cancels
    assert position(page) == ("words", "1")
    page.keyboard.press("g")
    page.keyboard.press("ArrowRight")  # any other key cancels and does its usual job
    assert prompt.is_hidden()
    assert position(page) == ("words", "2")
    watch.assert_clean()


FULLSCREEN_STUB = """
window.__fullscreenCalls = 0;
Element.prototype.requestFullscreen = function () { window.__fullscreenCalls++; return Promise.resolve(); };
"""


def _press(page, key: str) -> None:
    page.keyboard.press("Space" if key == " " else key)


def _visible(page, selector: str) -> bool:
    return page.locator(selector).is_visible()


def go_to(page, hash_: str) -> None:
    """Start a check from a known step, with nothing open (faster than reloading the page)."""
    reached = page.evaluate("""h => { const p = window.attentionTalk.player; const [s, t] = h.slice(2).split("/");
        p.set({ paused: false, overview: false }); p.go(Number(s), Number(t)); p.perform("close");
        return location.hash; }""", hash_)
    assert reached == hash_


def check_key(page, action: str, key: str) -> None:
    """Press `key` from a known step and check it does what the help says `action` does."""
    moves = {"next": ("#/2/1", ("map", "2")), "prev": ("#/2/2", ("map", "1")),
             "nextSlide": ("#/2/2", ("words", "1")), "prevSlide": ("#/4/1", ("words", "1")),
             "first": ("#/3/2", ("opening", "1")), "last": ("#/2/1", ("closing", "1"))}
    if action in moves:
        start, end = moves[action]
        go_to(page, start)
        _press(page, key)
        assert position(page) == end, (action, key)
        return
    go_to(page, "#/2/1")
    if action == "jump":
        _press(page, key)
        assert _visible(page, ".jump-prompt")
        page.keyboard.press("4")
        page.keyboard.press("Enter")
        assert position(page) == ("mask-again", "1")
    elif action == "overview":
        _press(page, key)
        assert _visible(page, "#overview")
        _press(page, key)
        assert not _visible(page, "#overview")
    elif action in ("blackout", "whiteout"):
        _press(page, key)
        tone = "black" if action == "blackout" else "white"
        assert page.locator(f'.blackout[data-blackout="{tone}"]').is_visible()
        page.keyboard.press("k")
        assert not _visible(page, ".blackout")
        assert position(page) == ("map", "1")
    elif action == "speaker":
        with page.context.expect_page() as popup_info:
            _press(page, key)
        popup = popup_info.value
        popup.wait_for_selector("#presenter.ready", state="attached")
        assert urlparse(popup.url).path == f"/talk/{DEMO}/presenter"
        wait_position(popup, "map", 1, "#presenter")
        popup.close()
    elif action == "fullscreen":
        _press(page, key)
        assert page.evaluate("window.__fullscreenCalls") == 1
    elif action == "text":
        narration = page.locator("#narration")
        assert "sr-only" in narration.get_attribute("class")
        _press(page, key)
        assert "sr-only" not in narration.get_attribute("class")
        assert narration.inner_text() == "The queries."
        _press(page, key)
        assert "sr-only" in narration.get_attribute("class")
    elif action == "theme":
        before = page.evaluate("document.documentElement.dataset.theme")
        _press(page, key)
        after = page.evaluate("document.documentElement.dataset.theme")
        assert {before, after} == {"dark", "light"}
        assert page.evaluate("localStorage.getItem('attention-talk-theme')") == after
        _press(page, key)
        assert page.evaluate("document.documentElement.dataset.theme") == before
    elif action == "help":
        _press(page, key)
        assert _visible(page, "#help")
        _press(page, key)
        assert not _visible(page, "#help")
    elif action == "qr":  # no room open: the overlay says how to start one
        _press(page, key)
        assert _visible(page, "#room-qr") and "speaker view" in page.locator("#room-qr").inner_text()
        _press(page, key)
        assert not _visible(page, "#room-qr")
    elif action == "close":
        page.keyboard.press("?")
        _press(page, key)
        assert not _visible(page, "#help")
        page.keyboard.press("o")
        _press(page, key)
        assert not _visible(page, "#overview")
    elif action in ("textBigger", "textSmaller", "textReset"):
        perform = "a => window.attentionTalk.player.perform(a)"
        page.evaluate(perform, "textReset")
        if action != "textBigger":
            page.evaluate(perform, "textBigger")
        _press(page, key)
        size = page.evaluate("document.documentElement.dataset.textSize")
        assert size == ("1.25" if action == "textBigger" else "1"), (action, key)
        page.evaluate(perform, "textReset")
    else:
        raise AssertionError(f"no check for the help row {action!r}: add one here")


def test_every_key_in_the_help_does_what_it_says(page, demo_url, watch) -> None:
    page.add_init_script(FULLSCREEN_STUB)
    page.demo_url = demo_url
    open_talk(page, demo_url)
    shown = page.locator("#help tr[data-action]").evaluate_all("rows => rows.map(r => r.dataset.action)")
    assert [k["action"] for k in KEYS] == [a for a in shown if a != "swipe"]
    for row in KEYS:
        for key in row["keys"]:
            check_key(page, row["action"], key)
    watch.assert_clean()


def test_speaker_view_keys_move_the_talk(page, demo_url, watch) -> None:
    """The speaker view's own help lists the keys that work there; jump and overview move the talk."""
    audience = open_talk(page, demo_url)
    speaker = open_speaker(page.context.new_page(), demo_url)
    actions = speaker.locator("#help tr[data-action]").evaluate_all("rows => rows.map(r => r.dataset.action)")
    assert "speaker" not in actions and "text" not in actions and "theme" not in actions
    assert "overview" in actions
    speaker.keyboard.press("g")
    speaker.keyboard.press("4")
    speaker.keyboard.press("Enter")
    wait_position(audience, "mask-again", 1)
    speaker.keyboard.press("o")
    speaker.keyboard.press("ArrowRight")
    speaker.keyboard.press("Enter")
    wait_position(audience, "closing", 1)
    speaker.keyboard.press("Home")
    wait_position(audience, "opening", 1)
    watch.assert_clean()


def start_room(speaker) -> str:
    """R in the speaker view, until the room is live; its code."""
    speaker.keyboard.press("r")
    speaker.wait_for_selector('.room-bar[data-room="live"]')
    return speaker.evaluate(f"JSON.parse(sessionStorage.getItem('attention-talk-room:{DEMO}')).code")


def test_qr_on_screen_without_a_talk_window_says_so_and_opens_one(page, demo_url, watch) -> None:
    """"QR on screen" asks the talk window to show the join QR code. With none open, the speaker view
    says so (instead of doing nothing), and its button opens the talk window showing the code."""
    speaker = open_speaker(page, demo_url)
    code = start_room(speaker)
    speaker.locator("#room-qr-show").click()
    speaker.wait_for_selector('.room-bar[data-qr="no-talk-window"]')
    note = speaker.locator("#room-qr-note")
    assert note.is_visible() and note.inner_text().startswith("No talk window is open to show the QR code.")
    with page.context.expect_page() as opened:
        speaker.locator("#room-qr-open").click()
    talk = opened.value
    talk.wait_for_selector("#room-qr:not([hidden])")
    assert talk.url.startswith(f"{demo_url}/talk/{DEMO}")
    assert talk.locator(".room-qr-code").get_attribute("src") == f"/join/{code}/qr.svg"
    assert talk.locator(".room-qr-link").inner_text() == f"{demo_url}/join/{code}"
    speaker.wait_for_selector('.room-bar[data-qr="shown"]')
    assert note.is_hidden()
    watch.assert_clean()


def test_qr_on_screen_shows_it_in_the_open_talk_window(page, demo_url, watch) -> None:
    audience = open_talk(page, demo_url)
    speaker = open_speaker(page.context.new_page(), demo_url)
    code = start_room(speaker)
    speaker.keyboard.press("q")
    audience.wait_for_selector("#room-qr:not([hidden])")
    assert audience.locator(".room-qr-code").get_attribute("src") == f"/join/{code}/qr.svg"
    speaker.wait_for_selector('.room-bar[data-qr="shown"]')
    speaker.locator("#room-qr-show").click()  # again: hidden, and the speaker view knows
    audience.wait_for_selector("#room-qr", state="hidden")
    speaker.wait_for_selector('.room-bar[data-qr="hidden"]')
    assert speaker.locator("#room-qr-note").is_hidden()
    watch.assert_clean()


# ---------------------------------------------------------------------------------------------
# print view


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))


def open_print(page, url: str):
    page.goto(url)
    page.wait_for_selector('html[data-ready="1"]', state="attached", timeout=15000)
    return page


@pytest.mark.parametrize("query", ["", "?notes=1"])
def test_print_view_has_one_pdf_page_per_step(page, demo_url, watch, query) -> None:
    open_print(page, f"{demo_url}/talk/{DEMO}/print{query}")
    pages = page.locator(".print-page")
    assert pages.count() == len(STEPS)
    for i, (slide, caption) in enumerate(STEPS):
        assert pages.nth(i).get_attribute("data-slide-id") == slide
        assert pages.nth(i).locator(".caption").inner_text() == caption
    # each page drawn in its final state: slide 2 step 3 shows the mask, step 1 no map yet
    assert pages.nth(3).locator('[data-tensor="map"] .cell.masked').count() > 0
    assert pages.nth(1).locator('[data-tensor="map"]').count() == 0
    assert pages.nth(1).locator('[data-tensor="Q"]').evaluate("g => getComputedStyle(g).opacity") == "1"
    assert (pages.nth(0).locator(".print-notes").count() == 1) == bool(query)
    pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    assert pdf_pages(pdf) == len(STEPS)
    watch.assert_clean()


def test_print_view_of_the_talk_matches_its_step_count(page, server_url) -> None:
    deck = "attention-step-by-step"
    steps = page.request.get(f"{server_url}/api/decks/{deck}").json()["steps"]
    open_print(page, f"{server_url}/talk/{deck}/print")
    assert page.locator(".print-page").count() == steps
    assert pdf_pages(page.pdf(prefer_css_page_size=True, print_background=True)) == steps
