"""Every fetch that expects JSON checks the answer's status and content type (static/js/lib/fetch-json.js):
when a proxy, a static host or a login page answers with HTML, the visitor reads what came back and
where, never "Unexpected token '<' … is not valid JSON". Real Chromium; the HTML answers are
injected with Playwright's request routing, one per place that fetches JSON: a slide's frames, the
speaker view's live room, the lab."""

from __future__ import annotations

import re

import pytest

from conftest import PageWatch

DECK = "attention-step-by-step"
HTML_ERROR = "<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>"
# A slide's frames, whole (…/frames) or one step's alone (…/frames/{step}: what a step opened by its
# link asks for first, static/js/frames.js loadStep)
MAP_FRAMES = re.compile(r"/slides/attention-map/frames(/\d+)?$")


def html_answer(status: int = 502):
    return lambda route: route.fulfill(status=status, content_type="text/html", body=HTML_ERROR)


def no_json_parse_errors(watch: PageWatch) -> None:
    """A console warning naming the answer is fine; an exception or a JSON parse error is not."""
    assert not [e for e in watch.errors if "JSON" in e or "Unexpected token" in e], watch.errors


@pytest.mark.parametrize("status", [200, 404, 502])
def test_a_slides_frames_answered_with_html_say_so_on_the_stage(page, server_url, status) -> None:
    watch = PageWatch(page, server_url.removeprefix("http://"))
    page.route(MAP_FRAMES, html_answer(status))
    page.goto(f"{server_url}/talk/{DECK}#/9/1")
    page.wait_for_selector("#player.ready", state="attached")
    failure = page.locator(".frame-failure")
    failure.wait_for()
    text = failure.inner_text()
    # the step's own frame is asked for first, so its failure is the one said
    assert text.startswith("This step's figure could not be loaded: frame 1 of attention-map:"), text
    assert f"HTTP {status}" in text and "text/html, not JSON" in text and "Unexpected token" not in text
    assert page.locator("#caption").inner_text() != ""  # the step's words stay
    page.unroute(MAP_FRAMES)
    page.keyboard.press("Shift+ArrowLeft")  # a slide that loads draws, and the message goes
    page.wait_for_selector('#player[data-slide="every-token"]', state="attached")
    page.wait_for_function("() => document.querySelector('.frame-failure').hidden")
    no_json_parse_errors(watch)


def test_a_room_answered_with_html_says_what_came_back(page, server_url) -> None:
    watch = PageWatch(page, server_url.removeprefix("http://"))
    page.route("**/api/rooms", html_answer(502))
    page.goto(f"{server_url}/talk/{DECK}/presenter")
    page.wait_for_selector("#presenter.ready", state="attached")
    page.locator("#room-start").click()
    page.wait_for_function("() => document.querySelector('#room-status').textContent !== ''")
    assert page.locator("#room-status").inner_text() == (
        "could not start a room: the server answered HTTP 502 Bad Gateway with text/html, not JSON")
    assert page.locator("#room-start").is_enabled()
    no_json_parse_errors(watch)


def test_the_lab_answered_with_html_says_what_came_back(page, server_url) -> None:
    watch = PageWatch(page, server_url.removeprefix("http://"))
    page.route("**/api/attention", html_answer(502))
    page.goto(f"{server_url}/lab?text=the+river+bank&source=illustrative")
    status = page.locator("#lab-status.error")
    status.wait_for()
    assert status.inner_text() == "No answer: the server answered HTTP 502 Bad Gateway with text/html, not JSON"
    no_json_parse_errors(watch)
