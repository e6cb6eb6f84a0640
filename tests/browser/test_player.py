"""The keypress player in real Chromium: keys, hash, reload, help, caption, no errors."""

from __future__ import annotations

import re

import pytest

from attention_talk.web.keys import KEYS

DECK = "attention-step-by-step"


def state(page) -> tuple[str, str, str]:
    """(data-slide, data-step) of the player and the location's hash, in one round trip."""
    return tuple(page.evaluate("() => { const el = document.querySelector('#player'); return "
                               "[el.getAttribute('data-slide'), el.getAttribute('data-step'), location.hash]; }"))


def test_loads_clean_and_offline(open_talk, watch) -> None:
    page = open_talk()
    assert state(page) == ("title", "1", "#/1/1")
    page.wait_for_load_state("networkidle")
    watch.assert_clean()


@pytest.mark.parametrize("forward, back", [("ArrowRight", "ArrowLeft"), ("PageDown", "PageUp")])
def test_step_forward_and_back(talk, forward, back) -> None:
    page = talk.open()
    page.keyboard.press(forward)
    assert state(page) == ("first-block", "1", "#/2/1")
    page.keyboard.press(forward)
    assert state(page) == ("first-block", "2", "#/2/2")
    page.keyboard.press(back)
    page.keyboard.press(back)
    assert state(page) == ("title", "1", "#/1/1")
    talk.assert_clean()


def test_reload_lands_on_the_same_step(open_talk, watch) -> None:
    page = open_talk(hash_="#/9/3")
    assert state(page) == ("attention-map", "3", "#/9/3")
    page.keyboard.press("ArrowRight")
    page.reload()
    page.wait_for_selector("#player.ready", state="attached")
    assert state(page) == ("attention-map", "4", "#/9/4")
    watch.assert_clean()


def test_the_url_is_written_with_the_step(open_talk) -> None:
    """A key's step and its URL change together, in the same task: a reload or a Back that comes
    straight after the key (or a link copied then) never lands a step behind the talk."""
    page = open_talk(hash_="#/9/3")
    seen = page.evaluate("""() => {
      const player = document.querySelector('#player'), keys = { key: 'ArrowRight', bubbles: true };
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      const step = [player.dataset.step, location.hash];
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      return [step, [player.dataset.slide, player.dataset.step, location.hash], history.length];
    }""")
    assert seen[0] == ["4", "#/9/4"] and seen[1] == ["attention-map", "6", "#/9/6"]
    page.keyboard.press("ArrowRight")  # a new slide: its own history entry, at once
    assert page.evaluate("() => [location.hash, history.length]") == ["#/10/1", seen[2] + 1]


def test_back_button_returns_to_previous_slide(open_talk) -> None:
    page = open_talk()
    page.keyboard.press("ArrowRight")  # new slide: a history entry
    page.keyboard.press("ArrowRight")  # same slide: replaced
    page.go_back()
    page.wait_for_function("document.querySelector('#player').dataset.slide === 'title'")
    assert state(page)[0] == "title"


def test_last_step_of_previous_slide(talk) -> None:
    page = talk.open(hash_="#/2/1")
    page.keyboard.press("ArrowLeft")
    assert state(page)[:2] == ("title", "1")
    page.keyboard.press("End")
    assert state(page)[:2] == ("sources", "1")
    page.keyboard.press("Shift+ArrowLeft")
    assert state(page)[:2] == ("many-heads", "1")
    page.keyboard.press("Home")
    assert state(page)[:2] == ("title", "1")


def test_help_lists_every_key_of_the_table(talk) -> None:
    page = talk.open()
    help_ = page.locator("#help")
    assert help_.is_hidden()
    page.keyboard.press("?")
    assert help_.is_visible()
    rows = help_.locator("tr[data-action]")
    actions = rows.evaluate_all("rows => rows.map(r => r.dataset.action)")
    assert [k["action"] for k in KEYS] == actions[: len(KEYS)]
    for k in KEYS:
        assert help_.locator(f'tr[data-action="{k["action"]}"] kbd').inner_text() == k["label"]
    page.keyboard.press("Escape")
    assert help_.is_hidden()
    talk.assert_clean()


def test_caption_region_follows_the_step(talk, server_url) -> None:
    page = talk.open()
    manifest = page.request.get(f"{server_url}/api/decks/{DECK}").json()
    region = page.locator('#announcer[aria-live="polite"]')
    expected = [c for s in manifest["slides"] for c in s["captions"]]
    for i, caption in enumerate(expected):
        assert caption in region.inner_text()
        if i < len(expected) - 1:
            page.keyboard.press("ArrowRight")


def test_keys_ignored_in_text_fields(open_talk) -> None:
    page = open_talk()
    page.evaluate("""() => { const i = document.createElement('input'); i.id = 'probe';
                      document.body.appendChild(i); }""")
    page.focus("#probe")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("n")
    assert state(page)[:2] == ("title", "1")


def test_frame_is_drawn_with_the_engines_numbers(talk, server_url) -> None:
    page = talk.open(hash_="#/9/4")
    frames = page.request.get(f"{server_url}/api/decks/{DECK}/slides/attention-map/frames").json()["frames"]
    scores = next(t for t in frames[3]["tensors"] if t["name"] == "map")
    cell = page.locator('#slide-attention-map [data-tensor="map"] .cell[data-r="2"][data-c="1"] text')
    expected = f"{scores['values'][2][1]:.1f}".replace("-", "−")
    assert cell.text_content() == expected
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    masked = page.locator('#slide-attention-map [data-tensor="map"] .cell[data-r="2"][data-c="3"]')
    assert re.search(r"\bmasked\b", masked.get_attribute("class"))
    assert masked.locator("text").text_content() == "−∞"

