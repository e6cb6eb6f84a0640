"""The keypress player in real Chromium: keys, hash, reload, help, caption, no errors."""

from __future__ import annotations

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


def test_a_held_key_writes_its_url_on_release_or_after_the_paint(open_talk) -> None:
    """The step is drawn on the keydown; its URL follows when the key comes up or once the step is
    painted, whichever is first, and any next key writes a waiting URL before it acts: so the
    history entries are those of stepping one key at a time, and the URL is never behind the
    talk by the time anything could act on it."""
    page = open_talk(hash_="#/9/2")
    seen = page.evaluate("""() => {
      const player = document.querySelector('#player'), keys = { key: 'ArrowRight', code: 'ArrowRight', bubbles: true };
      const length = history.length, now = () => [player.dataset.step, location.hash];
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      const held = now();
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));  // a key held: it repeats
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      const repeated = now();
      document.body.dispatchEvent(new KeyboardEvent('keyup', keys));
      return [held, repeated, now(), history.length - length];
    }""")
    assert seen == [["3", "#/9/2"], ["5", "#/9/4"], ["5", "#/9/5"], 0]

    # Held with no keyup at all: the URL is written once the step has been painted.
    page.keyboard.down("ArrowRight")
    page.evaluate("""() => new Promise((resolve, reject) => {
      const until = performance.now() + 5000;
      const poll = () => location.hash === '#/9/6' ? resolve()
        : performance.now() > until ? reject(new Error(location.hash)) : setTimeout(poll, 5);
      poll();
    })""")
    assert state(page) == ("attention-map", "6", "#/9/6")
    page.keyboard.up("ArrowRight")

    # Released at once (Playwright's press, a clicker): written by the time the key is up.
    page.keyboard.press("ArrowRight")  # the slide's last step, the mask added
    assert state(page) == ("attention-map", "7", "#/9/7")
    length = page.evaluate("history.length")
    page.keyboard.press("ArrowRight")  # a new slide: its own history entry
    assert page.evaluate("() => [location.hash, history.length]") == ["#/10/1", length + 1]


def test_a_url_written_while_a_step_waits_wins(open_talk) -> None:
    """Someone else's URL (a link, the address bar) changes while a held key's write waits, and the
    key comes up before the URL's hashchange arrives: the player goes to that URL; the waiting
    write does not put the old step back."""
    page = open_talk(hash_="#/9/3")
    page.evaluate("""() => {
      const keys = { key: 'ArrowRight', code: 'ArrowRight', bubbles: true };
      document.body.dispatchEvent(new KeyboardEvent('keydown', keys));
      location.hash = '#/5/1';
      document.body.dispatchEvent(new KeyboardEvent('keyup', keys));
    }""")
    page.wait_for_function("() => document.querySelector('#player').dataset.step === '1'")
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50)))")
    assert state(page)[1:] == ("1", "#/5/1")


@pytest.mark.parametrize("shortcut", [{"key": "F5"}, {"key": "r", "ctrlKey": True},
                                      {"key": "ArrowLeft", "altKey": True}, {"key": "l", "ctrlKey": True}],
                         ids=["F5", "Ctrl+R", "Alt+Left", "Ctrl+L"])
def test_a_browser_shortcut_pressed_while_a_key_is_held_finds_the_url_written(open_talk, shortcut) -> None:
    """Reload, Back or the address bar, pressed while the stepping key is still down: the page sees
    the shortcut's keydown before the browser acts on it, and that keydown writes the waiting URL.
    A reload then lands on the step the talk is at."""
    page = open_talk(hash_="#/9/5")
    seen = page.evaluate("""(shortcut) => {
      const player = document.querySelector('#player'), held = { key: 'ArrowRight', code: 'ArrowRight' };
      document.body.dispatchEvent(new KeyboardEvent('keydown', { ...held, bubbles: true }));
      const waiting = location.hash;
      document.body.dispatchEvent(new KeyboardEvent('keydown', { ...shortcut, bubbles: true }));
      return [waiting, player.dataset.slide, player.dataset.step, location.hash];
    }""", shortcut)
    assert seen == ["#/9/5", "attention-map", "6", "#/9/6"]
    page.reload()
    page.wait_for_selector("#player.ready", state="attached")
    assert state(page) == ("attention-map", "6", "#/9/6")


def test_back_button_returns_to_previous_slide(open_talk) -> None:
    page = open_talk()
    page.keyboard.press("ArrowRight")  # new slide: a history entry
    page.keyboard.press("ArrowRight")  # same slide: replaced
    page.go_back()
    page.wait_for_function("() => document.querySelector('#player').dataset.slide === 'title'")
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
    for _ in range(3):  # to the mask M added to the map (9/7)
        page.keyboard.press("ArrowRight")
    assert frames[6]["widgets"][0]["data"]["result"][2][3] is None  # −∞: "dog" may not read "sleeps"
    n = len(scores["values"])
    masked = page.locator("#slide-attention-map .mech-scores .mech-cell-g").nth(2 * n + 3)  # row-major
    masked.locator(".mech-masked-cell").wait_for(state="attached")
    assert masked.locator(".mech-cell-num").first.text_content() == "−∞"  # (the score it hid fades out after it)

