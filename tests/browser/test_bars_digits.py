"""A row of a map and the bars that repeat it show the same number of decimals (one digits rule).

Chapter 4's 6/3 once drew "rain"'s index scores as 3.4 and 0.5 in the map and as 3.44 and 0.53 in the bars
beside it: the tensor had two digits, its narrow cells drew one (views/matrix.js ``cellType``), the bars
drew the frame's two. The class: every step of every deck where a bars widget's values are a row (or a
column) of a tensor drawn on the same step, with at least two non-zero values. The pairs are found in the
frames (built here from the decks), then each step is opened by its link and the drawn texts compared.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from attention_talk.frames import build_deck, load_deck, needs_model
from attention_talk.paths import data_dir

DECIMALS = re.compile(r"[−-]?\d[\d,]*(?:\.(\d+))?")


def _row_of(values: np.ndarray, tensor: dict) -> tuple[str, int] | None:
    """('r' or 'c', index) of the tensor's row or column whose first values are ``values``, or None."""
    grid = np.array([[np.nan if v is None else v for v in row] for row in tensor["values"]], float)
    tol = 0.5 * 10.0 ** -(tensor["digits"] or 0) + 1e-9
    for axis, lines, index in (("r", grid, tensor["row_index"]), ("c", grid.T, tensor["col_index"])):
        for i, line in enumerate(lines):
            if len(line) >= len(values) and np.allclose(line[: len(values)], values, atol=tol) \
                    and np.count_nonzero(np.abs(values) > tol) >= 2:
                return axis, index[i]
    return None


def _pairs(frames_by_deck: dict) -> list[tuple[str, str, str, str, int]]:
    """(deck, '#/slide/step', widget id, tensor name, 'r'|'c', index) for every bars widget repeating a line."""
    out = []
    for deck_id, frames in frames_by_deck.items():
        for number, fs in enumerate(frames.values(), start=1):
            for f in fs:
                d = f.model_dump()
                for w in d["widgets"]:
                    values = np.array(w["data"].get("values") or [], float)
                    if w["type"] != "weight-bars" or len(values) < 2:
                        continue
                    for t in d["tensors"]:
                        if (line := _row_of(values, t)) is not None:
                            out.append((deck_id, f"#/{number}/{f.step}", w["id"], t["name"], *line))
    return out


@pytest.fixture(scope="module")
def pairs(request) -> list[tuple]:
    frames_by_deck = {}
    for path in sorted(data_dir("slides").glob("*.y*ml")):
        deck = load_deck(path)
        model = request.getfixturevalue("real_model") if needs_model(deck) else None
        frames_by_deck[deck.id] = build_deck(deck, model=model)[1]
    return _pairs(frames_by_deck)


def test_the_finder_sees_chapter_4s_kept_keys(pairs) -> None:
    assert ("deepseek-attention", "#/6/3", "row", "index", "r", 8) in pairs


DRAWN = """([widget, tensor, axis, index]) => {
  const g = document.querySelector(`.canvas > .tensor:not(.leaving)[data-tensor="${tensor}"]`);
  const attr = axis === "r" ? "data-r" : "data-c";
  const cells = [...g.querySelectorAll(`.cell[${attr}="${index}"] text`)].map((t) => t.textContent);
  const bars = [...document.querySelectorAll(`[data-widget="${widget}"] .wb-value`)].map((v) => v.textContent);
  return { cells, bars };
}"""


def _decimals(texts: list[str]) -> set[int]:
    out = set()
    for text in texts:
        if (m := DECIMALS.search(text)) is not None:
            out.add(len(m.group(1) or ""))
    return out


def test_bars_show_the_decimals_of_the_row_they_repeat(pairs, page, open_talk) -> None:
    assert pairs
    for deck, hash_, widget, tensor, axis, index in pairs:
        open_talk(deck, hash_)
        drawn = page.evaluate(DRAWN, [widget, tensor, axis, index])
        cells, bars = _decimals(drawn["cells"]), _decimals(drawn["bars"])
        assert len(cells) == 1 and cells == bars, (deck, hash_, widget, tensor, drawn)
