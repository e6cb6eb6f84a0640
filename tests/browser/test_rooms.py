"""Live rooms in real Chromium: the speaker view starts a room (R), a follower in another browser
context follows it, and the phone remote (390×844, a third context) pressing Next moves both; the
follower wanders off and catches up (C); the speaker view counts the follower; no secret reaches
the follower's page. The presenter ends the room (End room, armed by a first click, keys still
working): the follower's badge says so and its socket stops reconnecting; the remote shows it too.
"""

from __future__ import annotations

import json

import pytest
from axe_probe import serious_violations

from conftest import PageWatch

DEMO = "presenting-demo"


def where(page, root: str) -> tuple[str, str]:
    return tuple(page.evaluate("r => { const el = document.querySelector(r); "
                               "return [el.dataset.slide, el.dataset.step]; }", root))


@pytest.fixture
def room(page, demo_url, browser):
    speaker = page
    speaker.goto(f"{demo_url}/talk/{DEMO}/presenter")
    speaker.wait_for_selector("#presenter.ready", state="attached")
    speaker.keyboard.press("r")
    speaker.wait_for_selector('.room-bar[data-room="live"]')
    saved = json.loads(speaker.evaluate(f"sessionStorage.getItem('attention-talk-room:{DEMO}')"))
    follower_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    phone_ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    follower, phone = follower_ctx.new_page(), phone_ctx.new_page()
    yield speaker, follower, phone, saved
    follower_ctx.close()
    phone_ctx.close()


def test_the_remote_moves_the_speaker_view_and_the_follower(room, demo_url) -> None:
    speaker, follower, phone, saved = room
    watches = [PageWatch(p, demo_url.removeprefix("http://")) for p in (speaker, follower, phone)]
    follower.goto(saved["join_url"])
    badge = follower.locator("#live-badge")
    follower.wait_for_selector('#live-badge[data-live="live"]')
    assert saved["presenter_secret"] not in follower.content()
    speaker.wait_for_selector('.room-bar[data-followers="1"]')
    assert speaker.locator("#room-followers").inner_text() == "1 follower"

    phone.goto(saved["remote_url"])
    phone.wait_for_selector('#remote[data-status="live"]', state="attached")
    assert "secret" not in phone.url  # the fragment left the address bar
    assert phone.locator("#remote-caption").inner_text() == "Demo caption a.a"
    for button in ("#remote-prev", "#remote-next", "#remote-blackout"):
        box = phone.locator(button).bounding_box()
        assert box["height"] >= 48 and box["width"] >= 120, button

    phone.locator("#remote-next").tap()
    speaker.wait_for_selector('#presenter[data-slide="map"][data-step="1"]', state="attached")
    follower.wait_for_selector('#player[data-slide="map"][data-step="1"]', state="attached")
    assert phone.locator("#remote-caption").inner_text() == "Demo caption b.a"
    phone.locator("#remote-next").tap()
    follower.wait_for_selector('#player[data-slide="map"][data-step="2"]', state="attached")
    assert where(speaker, "#presenter") == ("map", "2")

    follower.keyboard.press("ArrowRight")  # the follower wanders off…
    assert where(follower, "#player") == ("map", "3")
    assert badge.get_attribute("data-live") == "away"
    speaker.keyboard.press("ArrowLeft")  # …the presenter moves on without them…
    phone.wait_for_selector('#remote[data-step="1"]', state="attached")
    assert where(follower, "#player") == ("map", "3")
    follower.keyboard.press("c")  # …and catches up
    assert badge.get_attribute("data-live") == "live"
    assert where(follower, "#player") == ("map", "1")

    assert serious_violations(follower) == []  # axe-core: the badge, away
    speaker.locator("#room-remote").click()
    speaker.wait_for_selector(".room-remote-qr[data-code]")
    assert serious_violations(speaker) == []  # the room bar and the remote's QR panel
    speaker.keyboard.press("Escape")
    assert speaker.locator("#room-remote-panel").is_hidden()
    assert serious_violations(phone) == []

    phone.locator("#remote-blackout").tap()
    follower.wait_for_selector('.blackout[data-blackout="black"]')
    assert phone.locator("#remote-blackout").get_attribute("aria-pressed") == "true"
    for w in watches:
        w.assert_clean()


NO_RECONNECT_JS = """async () => {
  const { RoomSocket } = await import("/static/js/lib/room-socket.js");
  const after = (code, reason) => {
    const socket = new RoomSocket("X", {});
    socket.closed({ code, reason });
    const seen = [socket.status, socket.timer !== null];
    socket.stop();
    return seen;
  };
  return [after(4410, "room ended by the presenter"), after(1013, "rooms unavailable: reconnecting")];
}"""


def test_the_presenter_ends_the_room_and_the_follower_is_told(room, demo_url) -> None:
    speaker, follower, phone, saved = room
    watches = [PageWatch(p, demo_url.removeprefix("http://")) for p in (speaker, follower, phone)]
    follower.goto(saved["join_url"])
    follower.wait_for_selector('#live-badge[data-live="live"]')
    phone.goto(saved["remote_url"])
    phone.wait_for_selector('#remote[data-status="live"]', state="attached")
    speaker.wait_for_selector('.room-bar[data-followers="1"]')
    end = speaker.locator("#room-end")
    assert end.is_visible() and end.inner_text() == "End room"

    end.click()  # the first click only arms it…
    speaker.wait_for_selector('#room-end[data-armed="true"]')
    assert end.inner_text() == "Click again to end the room"
    speaker.keyboard.press("ArrowRight")  # …and nothing modal: the keys still step the talk
    follower.wait_for_selector('#player[data-slide="map"][data-step="1"]', state="attached")
    assert follower.locator("#live-badge").get_attribute("data-live") == "live"
    assert serious_violations(speaker) == []  # the armed button too

    end.click()  # the second ends it, for everyone
    badge = follower.locator("#live-badge")
    follower.wait_for_selector('#live-badge[data-live="ended"]')
    assert badge.inner_text() == "Room ended"
    assert "room ended by the presenter" in badge.get_attribute("title")
    phone.wait_for_selector('#remote[data-status="ended"]', state="attached")
    speaker.wait_for_selector('.room-bar[data-room="off"]')
    assert speaker.locator("#room-start").is_visible() and end.is_hidden()
    assert speaker.evaluate(f"sessionStorage.getItem('attention-talk-room:{DEMO}')") is None
    gone = speaker.request.get(saved["join_url"])
    assert gone.status == 404
    assert follower.evaluate(NO_RECONNECT_JS) == [["ended", False], ["reconnecting", True]]
    assert where(follower, "#player") == ("map", "1")  # the follower keeps the talk where it was
    follower.keyboard.press("ArrowRight")
    assert where(follower, "#player") == ("map", "2")  # and may go on by themselves

    speaker.keyboard.press("r")  # a new room starts from the same speaker view
    speaker.wait_for_selector('.room-bar[data-room="live"]')
    fresh = json.loads(speaker.evaluate(f"sessionStorage.getItem('attention-talk-room:{DEMO}')"))
    assert fresh["code"] != saved["code"]
    for w in watches:
        w.assert_clean()
