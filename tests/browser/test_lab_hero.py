"""The lab as a first visitor meets it (issue 32), in real Chromium: at 1280 × 720 and 1920 × 1080
the map, the head view and the grid are above the fold; no text leaves its box; every number
written in a cell keeps 4 px from the cell's edges (and a map too dense for its numbers writes
none); no token label is clipped; a phone in portrait shows the map on its first screen with the
controls in a sheet; the three guided tours play to the state they name with the URL holding it
throughout, Back and Forward walking the steps; leaving a tour leaves the lab where it ended; the
next tokens follow the output softmax's temperature; a change of head crossfades the map (none with
reduced motion). The expected states are written here, not read from the page's code."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from test_lab import painted, query

from attention_talk.formatting import number

SIZES = [(1280, 720), (1920, 1080)]

# Every element that holds text directly (not only through children), and the box it must stay in:
# its own scrolling or clipping ancestor, else the view or bar it belongs to. [what, text, overflow px]
TEXT_OUTSIDE = """() => {
  const out = [];
  const boxes = '.lab-view, .lab-controls, .lab-tour, .lab-top, .lab-main';
  const skip = (el) => el.closest('.sr-only, [hidden], .lab-panel, svg, .lab-tokens, .kv-title, .lab-count')
    || getComputedStyle(el).display === 'none' || getComputedStyle(el).visibility === 'hidden'
    || el.getClientRects().length === 0;
  for (const el of document.querySelectorAll('.page-lab *')) {
    if (skip(el)) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const range = document.createRange();
    range.selectNodeContents(el);
    const r = range.getBoundingClientRect();
    const box = el.closest(boxes);
    if (!box || !r.width) continue;
    // text inside a scrolling box (the grid, a tall map) is scrolled to, not outside
    let up = el.parentElement, scrolled = false;
    while (up && up !== box) {
      if (['auto', 'scroll'].includes(getComputedStyle(up).overflowY)) { scrolled = true; break; }
      up = up.parentElement;
    }
    if (scrolled) continue;
    const b = box.getBoundingClientRect();
    const over = Math.max(b.left - r.left, r.right - b.right, b.top - r.top, r.bottom - b.bottom);
    if (over > 1) out.push([el.tagName + '.' + el.className, el.textContent.trim().slice(0, 40), Math.round(over)]);
    // a box that clips or scrolls its own text sideways hides some of it
    const clips = getComputedStyle(el).overflowX !== 'visible' && el.tagName !== 'TEXTAREA';
    if (clips && el.scrollWidth > el.clientWidth + 1) {
      out.push([el.tagName + '.' + el.className, el.textContent.trim().slice(0, 40), el.scrollWidth - el.clientWidth]);
    }
  }
  return out;
}"""

# Each number written in a map cell: the gaps (px) from its glyphs' box to its cell's four edges.
NUMBER_GAPS = """() => {
  const canvas = document.getElementById('lab-map-cells');
  const cw = Number(canvas.dataset.cell), c0 = canvas.getBoundingClientRect();
  return [...document.querySelectorAll('#lab-map .cell-number')].map((t) => {
    const r = t.getBoundingClientRect();
    const x = c0.left + Number(t.dataset.c) * cw, y = c0.top + Number(t.dataset.r) * cw;
    return { text: t.textContent, gaps: [r.left - x, x + cw - r.right, r.top - y, y + cw - r.bottom] };
  });
}"""

# Every token label of the map and the head view: its text, its box, and the boxes it must lie in
# (its drawing's own SVG, and the scrolling box's visible width).
LABELS = """() => [...document.querySelectorAll('#lab-map .axis-label, #lab-lines text')]
  .filter((t) => getComputedStyle(t).display !== 'none')
  .map((t) => {
    const r = t.getBoundingClientRect(), s = t.ownerSVGElement.getBoundingClientRect();
    const box = t.closest('.map-box, .lines-box').getBoundingClientRect();
    return { text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom,
             svg: [s.left, s.right, s.top, s.bottom], box: [box.left, box.right] };
  })"""


def rect(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def inside_screen(box: dict, w: int, h: int) -> bool:
    right, bottom = box["x"] + box["width"], box["y"] + box["height"]
    return box["x"] >= 0 and box["y"] >= 0 and right <= w + 0.5 and bottom <= h + 0.5


@pytest.fixture
def sized(page, server_url):
    def go(w: int, h: int, q: str = "", want: str = ""):
        page.set_viewport_size({"width": w, "height": h})
        page.goto(f"{server_url}/lab{q}")
        painted(page, want)
        page.wait_for_timeout(150)  # the grid paints at its resize observer, after layout
        return page
    return go


@pytest.mark.parametrize(("w", "h"), SIZES)
def test_the_first_screen_holds_the_map_the_head_view_and_the_grid(sized, w, h, real_model, watch) -> None:
    page = sized(w, h)
    assert query(page)["source"] == ["model"]
    for view in ("#view-map", "#view-lines", "#view-grid", "#lab-map-cells"):
        box = rect(page, view)
        assert box and inside_screen(box, w, h), (view, box)
    # the whole map, not a corner of it: the cells' canvas lies inside its scrolling box
    cells, holder = rect(page, "#lab-map-cells"), rect(page, ".map-box")
    assert cells["y"] + cells["height"] <= holder["y"] + holder["height"] + 0.5
    assert cells["x"] + cells["width"] <= holder["x"] + holder["width"] + 0.5
    assert page.locator(".grid-map").count() == 30 * 9 and rect(page, ".grid-map.current")
    assert page.evaluate(TEXT_OUTSIDE) == []
    watch.assert_clean()


@pytest.mark.parametrize(("w", "h"), SIZES)
@pytest.mark.parametrize("text", ["the river bank", "The river flooded the town because it rained all night"])
@pytest.mark.parametrize("kind", ["weights", "scores"])
def test_numbers_keep_4_px_from_their_cells_edges(sized, w, h, text, kind, real_model) -> None:
    page = sized(w, h, f"?text={quote(text)}&source=model&layer=9&head=2&map={kind}")
    cells = page.evaluate(NUMBER_GAPS)
    n = len(query(page)["text"][0].split())
    if text == "the river bank":  # three tokens: cells large enough for every number
        assert len(cells) >= 9
    for cell in cells:
        assert min(cell["gaps"]) >= 4, cell
    cw = float(page.locator("#lab-map-cells").get_attribute("data-cell"))
    if cells:  # numbers shown: then every one, and never wider than its cell allows
        assert cw >= 30 and len(cells) == len(page.locator("#lab-map .axis-label.row").all()) ** 2
    else:  # too dense: the numbers hide, the tip shows the cell under the cursor on hover
        page.locator("#lab-map-cells").hover(position={"x": cw / 2, "y": cw / 2})
        tip = page.locator("#lab-map .map-tip text")
        assert tip.is_visible() and tip.text_content().strip()
    assert n > 0 and page.evaluate(TEXT_OUTSIDE) == []


@pytest.mark.parametrize(("w", "h"), SIZES)
def test_no_token_label_is_clipped(sized, w, h, real_model) -> None:
    text = "The river flooded the town because the rain never stopped"
    page = sized(w, h, f"?text={quote(text)}&source=model&layer=9&head=2")
    tokens = [t.strip().lstrip("·") for t in page.locator("#lab-tokens li").all_text_contents()]
    labels = page.evaluate(LABELS)
    assert labels
    for label in labels:
        left, right, top, bottom = label["svg"]
        assert label["left"] >= left - 0.5 and label["right"] <= right + 0.5, label
        assert label["top"] >= top - 0.5 and label["bottom"] <= bottom + 0.5, label
        assert label["left"] >= label["box"][0] - 0.5 and label["right"] <= label["box"][1] + 0.5, label
        shown = label["text"].strip().lstrip("·")
        assert shown in tokens or shown.endswith("…"), label
    # "because" and "flooded" whole, in both drawings (the report: "becaus", "floode")
    texts = [label["text"].strip() for label in labels]
    for word in ("because", "flooded"):
        assert texts.count(word) >= 2


def test_a_phone_shows_the_map_first_and_the_controls_in_a_sheet(sized, real_model, watch) -> None:
    page = sized(390, 844)
    cells = rect(page, "#lab-map-cells")
    assert cells and cells["y"] < 844 and cells["y"] + min(cells["height"], 200) <= 844
    assert page.locator("#lab-text").is_hidden()  # the sheet is closed
    toggle = page.locator("#lab-sheet-toggle")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    assert page.locator("#lab-text").is_visible() and toggle.get_attribute("aria-expanded") == "true"
    page.locator('input[name="model-head"][value="5"]').check()
    assert painted(page, "head=5")["layer"] == ["9"]
    page.keyboard.press("Escape")
    page.wait_for_selector("#lab-text", state="hidden", timeout=15_000)  # after the sheet's slide
    assert toggle.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.activeElement.id") == "lab-sheet-toggle"
    # the grid scrolls inside its box (its edge shows there is more), the page never sideways
    page.get_by_role("tab", name="All heads").click()
    grid = page.locator("#lab-grid")
    assert grid.evaluate("g => g.scrollHeight > g.clientHeight + 20 && getComputedStyle(g).overflowY === 'auto'")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    watch.assert_clean()


# What each tour ends on (layer, head, map) and the words its sentence is made of.
TOURS = {
    "ambiguous": {"end": ("9", "2", "scores"), "words": ["river", "bank"], "steps": 3},
    "induction": {"end": ("17", "4", None), "words": ["violin", "seven", "kettle"], "steps": 3},
    "sink": {"end": ("23", "2", None), "words": ["evening", "train", "inn."], "steps": 3},
}


@pytest.mark.parametrize("tour", list(TOURS))
def test_each_tour_plays_to_the_state_it_names(sized, server_url, tour, real_model, watch) -> None:
    page = sized(1280, 720)
    want = TOURS[tour]
    entries = page.evaluate("history.length")
    page.locator(f'[data-tour="{tour}"]').click()
    seen = []
    for step in range(1, want["steps"] + 1):
        state = painted(page, f"step={step}")
        assert state["tour"] == [tour] and state["source"] == ["model"]
        assert all(word in state["text"][0] for word in want["words"])
        assert page.locator("#lab-tour").is_visible()
        assert page.text_content("#lab-tour .tour-step") == f"step {step} of {want['steps']}"
        assert page.text_content("#lab-tour-say").strip()
        assert page.locator("#lab-map-stage").get_attribute("data-look")  # what to look at, outlined
        assert page.locator("#lab-map .map-look rect").count() >= 1
        seen.append(dict(state))
        if step < want["steps"]:
            page.click("#lab-tour-next")
    layer, head, kind = want["end"]
    assert (state["layer"][0], state["head"][0], state.get("map", ["weights"])[0]) == (layer, head, kind or "weights")
    assert page.locator("#lab-tour-next").is_disabled()
    # the map shown is the model's for that head: the readout's cell against the API's answer
    body = httpx.post(f"{server_url}/api/model/lab", json={"text": state["text"][0], "layer": int(layer),
                                                         "head": int(head), "grid": 0}).json()
    r, c = (int(v) for v in page.evaluate("() => window.attentionLab.map.cursor"))
    values = body[kind or "weights"]
    assert page.text_content("#lab-map-readout").split(" = ")[1].startswith(number(values[r][c], 4))
    assert page.evaluate("history.length") == entries + want["steps"]  # each step its own entry
    page.go_back()
    assert painted(page, "step=2")["tour"] == [tour]
    assert page.text_content("#lab-tour .tour-step") == f"step 2 of {want['steps']}"
    page.go_forward()
    assert painted(page, f"step={want['steps']}")["layer"] == [layer]
    page.click("#lab-tour-leave")  # leaving keeps the lab where the tour ended
    state = painted(page)
    assert "tour" not in state and (state["layer"][0], state["head"][0]) == (layer, head)
    assert page.locator("#lab-tour").is_hidden()
    page.go_back()
    assert painted(page, "tour=")["tour"] == [tour]
    watch.assert_clean()


def test_a_change_of_the_students_own_leaves_the_tour(sized, real_model) -> None:
    page = sized(1280, 720, "?tour=induction&step=2", "step=2")
    page.locator('input[name="model-head"][value="7"]').check()
    state = painted(page, "head=7")
    assert "tour" not in state and state["layer"] == ["18"] and "violin" in state["text"][0]
    assert page.locator("#lab-tour").is_hidden()


def test_the_next_tokens_follow_the_output_temperature(sized, server_url, real_model, watch) -> None:
    text = "The capital of France is"
    page = sized(1920, 1080, f"?text={quote(text)}&source=model&layer=3&head=5")
    page.locator("#view-next").scroll_into_view_if_needed()
    label = page.locator('label[for="lab-next-temperature"]').text_content()
    assert "output softmax" in label  # not the attention's temperature
    assert "attention temperature" in page.locator('label[for="lab-temperature"]').text_content()
    first = page.locator("#lab-next .next-p").first.text_content()
    page.focus("#lab-next-temperature")
    for _ in range(10):
        page.keyboard.press("ArrowRight")  # 1 → 1.5
    state = painted(page, "next_temperature=1.5")
    assert state["next_temperature"] == ["1.5"]
    body = httpx.post(f"{server_url}/api/model/lab", json={"text": text, "layer": 3, "head": 5, "grid": 0,
                                                         "next_temperature": 1.5}).json()
    shown = page.locator("#lab-next .next-p").all_text_contents()
    assert shown == [f"{number(t['p'] * 100, 1)} %" for t in body["next_tokens"]]
    assert shown[0] != first  # a hotter softmax moved the top probability
    page.reload()
    painted(page, "next_temperature=1.5")
    assert page.input_value("#lab-next-temperature") == "1.5"
    watch.assert_clean()


ANIMATIONS = "() => document.getElementById('lab-map-ghost').getAnimations().length"


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_change_of_head_crossfades_the_map(sized, motion, real_model) -> None:
    page = sized(1280, 720, "?text=" + quote("the river bank flooded") + "&source=model&layer=9&head=2")
    page.emulate_media(reduced_motion=motion)
    page.locator('input[name="model-head"][value="3"]').check()
    painted(page, "head=3")
    assert page.evaluate(ANIMATIONS) == (1 if motion == "no-preference" else 0)
    page.wait_for_timeout(600)
    # the end state is the new map alone, with or without the motion
    assert page.evaluate(ANIMATIONS) == 0
    assert page.locator("#lab-map-ghost").evaluate("g => getComputedStyle(g).opacity") == "0"
