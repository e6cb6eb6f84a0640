"""Colour = role in the browser (docs/colours.md): one masked look in every deck and the lab, and a
diverging scale for signed tensors.

A masked cell is drawn the same wherever it appears (chapter 1's mask and softmax slides, chapter
2's pipeline and masks section, chapter 3's real map, the weight bars, the lab's canvas): the
hatch url(#masked-hatch) at full opacity, text in --mask-text, "−∞" for a score and a plain "0" for
a weight. And in a signed tensor a negative cell never takes a positive cell's colour."""

from __future__ import annotations

import pytest
from stage_probe import DECKS, open_at, tracked_page


def masked_steps(server_url: str, deck: str, most: int = 6) -> list[str]:
    """The deck's steps whose matrices hold a masked cell (a −∞ score, or a weight a mask blocks), read
    from the frames the server sends: never a list of step numbers that goes stale when a deck changes.
    Up to ``most`` of them, spread over the deck, scores and weights both."""
    import json
    import urllib.request

    def get(path: str):
        with urllib.request.urlopen(f"{server_url}{path}", timeout=60) as r:
            return json.load(r)

    scores, weights = [], []
    for number, slide in enumerate(get(f"/api/decks/{deck}")["slides"], 1):
        for step, frame in enumerate(get(f"/api/decks/{deck}/slides/{slide['id']}/frames")["frames"], 1):
            tensors = frame["tensors"]
            if any(v is None for t in tensors for row in t["values"] for v in row):
                scores.append(f"#/{number}/{step}")
            if any(t.get("masked") for t in tensors):
                weights.append(f"#/{number}/{step}")
    spread = lambda steps, k: steps[:: max(1, len(steps) // k)][:k]  # noqa: E731
    return sorted(set(spread(scores, most // 2) + spread(weights, most - most // 2)))


# Every masked matrix cell and masked bar on the active slide: its look and its words.
LOOKS = r"""() => {
  const out = [];
  for (const cell of document.querySelectorAll('.slide.active .cell.masked')) {
    const rect = getComputedStyle(cell.querySelector('rect')), text = getComputedStyle(cell.querySelector('text'));
    const kind = cell.closest('.tensor').dataset.kind;
    // a value the step does not show has no words (views/matrix.js): only its hatch is checked
    const words = cell.classList.contains('hidden-value') ? null : cell.textContent.trim();
    out.push({ what: kind === 'weights' ? 'weight' : 'score', words,
      look: [rect.fill, rect.fillOpacity, text.fill, text.fontStyle].join(' | ') });
  }
  for (const row of document.querySelectorAll('.slide.active .wb-row.future')) {
    const track = getComputedStyle(row.querySelector('.wb-track'));
    const value = getComputedStyle(row.querySelector('.wb-value'));
    out.push({ what: 'bar', words: row.querySelector('.wb-value').textContent.trim(),
      look: [track.backgroundImage, value.color].join(' | ') });
  }
  return { cells: out, pattern: Boolean(document.getElementById('masked-hatch')),
    hatch: getComputedStyle(document.documentElement).getPropertyValue('--mask-hatch').trim() };
}"""


@pytest.fixture(scope="module")
def masked_looks(browser, server_url):
    """{deck: [masked cells seen on its sampled steps]}, each {what, words, look}."""
    seen: dict[str, list[dict]] = {}
    with tracked_page(browser) as page:
        for deck in DECKS:
            for hash_ in masked_steps(server_url, deck):
                open_at(page, server_url, deck, hash_)
                got = page.evaluate(LOOKS)
                if any(c["what"] != "bar" for c in got["cells"]):
                    assert got["pattern"], (deck, hash_)  # the hatch the cells' fill names exists
                seen.setdefault(deck, []).extend({**c, "at": hash_} for c in got["cells"])
    return seen


def test_every_deck_shows_masked_scores_and_weights(masked_looks) -> None:
    for deck, cells in masked_looks.items():
        kinds = {c["what"] for c in cells}
        assert {"score", "weight"} <= kinds, (deck, kinds)
    assert any(c["what"] == "bar" for cells in masked_looks.values() for c in cells)


def test_a_masked_cell_looks_the_same_in_every_deck(masked_looks) -> None:
    cells = [c for cells in masked_looks.values() for c in cells]
    matrix_looks = {c["look"] for c in cells if c["what"] in ("score", "weight")}
    assert len(matrix_looks) == 1, matrix_looks
    (look,) = matrix_looks
    assert look.startswith('url("#masked-hatch")') and "| 1 |" in look  # hatched, at full strength
    bar_looks = {c["look"] for c in cells if c["what"] == "bar"}
    assert len(bar_looks) == 1, bar_looks
    assert look.split(" | ")[2] == next(iter(bar_looks)).split(" | ")[-1]  # the same greyed text colour


def test_a_masked_score_says_minus_infinity_and_a_masked_weight_a_plain_zero(masked_looks) -> None:
    words = {(c["what"], c["words"]) for cells in masked_looks.values() for c in cells if c["words"] is not None}
    assert {what for what, _ in words} >= {"score", "weight"}  # shown words of both kinds were read
    assert {w for what, w in words if what == "score"} == {"−∞"}
    assert {w for what, w in words if what in ("weight", "bar")} == {"0"}


LAB_CELL = r"""async () => {
  const canvas = document.getElementById('lab-map-cells');
  const deadline = Date.now() + 60000;
  while (!(canvas.dataset.cell && canvas.width > 0)) {
    if (Date.now() > deadline) throw new Error('the lab map was never drawn');
    await new Promise((r) => setTimeout(r, 50));
  }
  const cw = Number(canvas.dataset.cell), dpr = canvas.width / canvas.clientWidth;
  const ctx = canvas.getContext('2d');
  const css = getComputedStyle(document.documentElement);
  const norm = (c) => { const x = document.createElement('canvas').getContext('2d'); x.fillStyle = c;
    const h = x.fillStyle.slice(1); return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)); };
  const colours = (r, c) => { // the pixels of cell (r, c)'s left third, clear of its number
    const d = ctx.getImageData(Math.round((c * cw + 2) * dpr), Math.round((r * cw + 2) * dpr),
      Math.round(cw * dpr / 3), Math.round((cw - 4) * dpr)).data;
    const out = []; for (let i = 0; i < d.length; i += 4) out.push([d[i], d[i + 1], d[i + 2]]); return out; };
  return { masked: colours(0, 1), open: colours(1, 0), line: norm(css.getPropertyValue('--mask-line')),
    ground: norm(css.getPropertyValue('--mask-bg')) };
}"""


def _near(pixels, colour, tolerance=10) -> bool:
    return any(max(abs(p - c) for p, c in zip(px, colour, strict=True)) <= tolerance for px in pixels)


def test_the_lab_hatches_its_masked_cells_like_the_talk(browser, server_url) -> None:
    """The lab's weights map (the causal mask is on by default): the cell above the diagonal shows
    the talk's two hatch colours; a cell the mask keeps shows neither stripe."""
    with tracked_page(browser) as page:
        page.goto(f"{server_url}/lab")
        got = page.evaluate(LAB_CELL)
    assert _near(got["masked"], got["line"]) and _near(got["masked"], got["ground"])
    assert not _near(got["open"], got["line"], tolerance=4)


# Every signed tensor on the active slide: the colour of its negative cells and of its positive ones.
SIGNS = r"""() => {
  const out = [];
  for (const g of document.querySelectorAll('.slide.active .tensor')) {
    const fills = { neg: new Set(), pos: new Set() };
    for (const cell of g.querySelectorAll('.cell:not(.masked)')) {
      const v = parseFloat(cell.textContent.replace('−', '-'));
      if (!Number.isFinite(v) || v === 0) continue;
      fills[v < 0 ? 'neg' : 'pos'].add(getComputedStyle(cell.querySelector('rect')).fill);
    }
    if (fills.neg.size && fills.pos.size) {
      out.push({ tensor: g.dataset.tensor, neg: [...fills.neg], pos: [...fills.pos] });
    }
  }
  return out;
}"""
SIGNED = {"attention-step-by-step": ["#/6/1", "#/9/5", "#/12/10"], "attention-walkthrough": ["#/4/1", "#/6/2"]}


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_a_signed_tensors_negative_and_positive_cells_differ_in_colour(browser, server_url, theme) -> None:
    seen = []
    with tracked_page(browser) as page:
        for deck, steps in SIGNED.items():
            for hash_ in steps:
                open_at(page, server_url, deck, hash_)
                if page.evaluate("document.documentElement.dataset.theme") != theme:
                    page.keyboard.press("d")
                    page.wait_for_function(f"() => document.documentElement.dataset.theme === '{theme}'")
                for t in page.evaluate(SIGNS):
                    seen.append((deck, hash_, t["tensor"]))
                    assert len(t["neg"]) == 1 and len(t["pos"]) == 1, t  # one hue per side of zero
                    assert t["neg"] != t["pos"], t
    assert len(seen) >= 5, seen
