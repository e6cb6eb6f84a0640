"""The first load in real Chromium: the first paint binds only the stage, and every other key still
works on its first press, pressed before its controller is even loaded (held, then acted on).

Each test opens a fresh page and holds the request for controllers/help.js (one of the modules
loaded after the first paint, so the rest waits for it too) until the key has been pressed."""

from __future__ import annotations

import re

import pytest

DECK = "attention-step-by-step"
LATER = re.compile(r"/static/js/controllers/help\.js$")


class Held:
    """Requests matching LATER wait until release()."""

    def __init__(self, page):
        self.page, self.routes = page, []
        page.route(LATER, lambda route: self.routes.append(route))

    def release(self) -> None:
        for route in self.routes:
            route.continue_()
        self.routes.clear()
        self.page.unroute(LATER)


def opened_early(page, server_url: str, path: str = f"/talk/{DECK}", root: str = "#player") -> Held:
    """The page, its first step on the stage, the controllers after the first paint not loaded yet."""
    held = Held(page)
    page.goto(f"{server_url}{path}#/2/1")
    page.wait_for_selector(f"{root} .slide.active", state="attached")
    page.wait_for_function("() => window.attentionTalk !== undefined")
    assert page.evaluate("() => window.attentionTalk.player.actions.has('help')") is False
    assert page.locator(f"{root}.ready").count() == 0
    return held


def press_early(page, server_url: str, *keys: str):
    held = opened_early(page, server_url)
    for key in keys:
        page.keyboard.press(key)
    held.release()
    page.wait_for_selector("#player.ready", state="attached")
    return page


def visible(page, selector: str) -> bool:
    return page.evaluate("s => [...document.querySelectorAll(s)].some((el) => el.checkVisibility())", selector)


@pytest.mark.parametrize("key, selector", [("?", "#help"), ("o", "#overview"), ("q", "#room-qr"),
                                           ("b", ".blackout[data-blackout=black]"),
                                           ("w", ".blackout[data-blackout=white]")])
def test_an_overlay_key_pressed_before_its_controller_opens_it(page, server_url, watch, key, selector) -> None:
    press_early(page, server_url, key)
    page.wait_for_function("s => [...document.querySelectorAll(s)].some((el) => el.checkVisibility())", arg=selector)
    assert visible(page, selector)
    page.keyboard.press("Escape" if key in "?oq" else "ArrowRight")  # blackout: any key returns
    assert not visible(page, selector)
    assert page.evaluate("location.hash") == "#/2/1"
    watch.assert_clean()


def test_jump_keys_pressed_before_the_prompt_exists_still_jump(page, server_url, watch) -> None:
    press_early(page, server_url, "g", "9", "Enter")
    page.wait_for_function("() => location.hash === '#/9/1'")
    assert page.get_attribute("#player", "data-slide") == "attention-map"
    watch.assert_clean()


def test_keys_held_while_loading_act_in_order(page, server_url) -> None:
    # D (theme) waits for its controller; the arrows pressed after it wait behind it, in order
    held = opened_early(page, server_url)
    start = page.evaluate("() => document.documentElement.dataset.theme")
    for key in ("d", "ArrowRight", "ArrowRight", "ArrowLeft"):
        page.keyboard.press(key)
    assert page.evaluate("location.hash") == "#/2/1"  # held
    held.release()
    page.wait_for_function("() => location.hash === '#/2/2'")
    assert {start, page.evaluate("() => document.documentElement.dataset.theme")} == {"light", "dark"}


def test_text_size_and_speaker_view_on_their_first_press(page, server_url) -> None:
    press_early(page, server_url, "+")
    page.wait_for_function("() => document.documentElement.dataset.textSize === '1.25'")
    page = page.context.new_page()  # a fresh load, not a same-document navigation
    held = opened_early(page, server_url)
    with page.expect_popup() as popup:
        page.keyboard.press("s")
        held.release()
    assert popup.value.url.endswith(f"/talk/{DECK}/presenter")
    popup.value.close()


def test_the_speaker_view_s_help_on_its_first_press(page, server_url) -> None:
    held = opened_early(page, server_url, f"/talk/{DECK}/presenter", "#presenter")
    page.keyboard.press("?")
    held.release()
    page.wait_for_selector("#presenter.ready", state="attached")
    page.wait_for_function("() => document.querySelector('#help').checkVisibility()")


AT_FIRST_DRAW = """window.addEventListener("DOMContentLoaded", () => {
  document.getElementById("player").addEventListener("framedrawn", () => {
    window.__fetched = performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname);
  }, { once: true });
});"""


def test_the_first_paint_fetched_none_of_the_later_modules(page, server_url) -> None:
    page.add_init_script(AT_FIRST_DRAW)
    page.goto(f"{server_url}/talk/{DECK}#/2/1")
    page.wait_for_selector("#player.ready", state="attached")
    fetched = page.evaluate("window.__fetched")
    assert "/static/js/controllers/stage.js" in fetched and "/static/js/views/matrix.js" in fetched
    for later in ("help", "overview", "jump", "blackout", "derivation", "onscreen", "touch", "sync", "speaker"):
        assert f"/static/js/controllers/{later}.js" not in fetched
    assert "/static/css/present.css" not in fetched
    sheets = page.evaluate("() => [...document.styleSheets].map((s) => s.href && new URL(s.href).pathname)")
    assert {"/static/css/present.css", "/static/css/rooms.css", "/static/css/reading.css"} <= set(sheets)
