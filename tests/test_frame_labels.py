"""Every label says what is drawn, over every frame of every deck in slides/ (issue 31, "the class").

- A tensor's shape label, as the player writes it (``drawnShape`` in static/js/lib/format.js, run
  here with node), is the drawn shape: the full size on an axis whose window runs from the first
  index to the last (the elided ones drawn as … or ⋮), else the number of rows or columns shown —
  one row of a map is 1 × n, a crop its own size. (``shape`` stays the full tensor's: a sourced
  tensor's window indexes the API's answer.)
- A note saying "rows a–b of n" names a tensor of the frame whose window is those rows of n.
- A percentage in a caption, note or card is a number the frame carries (a weight, a widget's
  figure), or the mean of a drawn tensor's outlined cells; when it is only that mean, the text says
  "mean" or "average".
- A source tag naming GGUF metadata names keys the model file has, read here with the ``gguf``
  package, independently of the app's reader.

Self-contained: it builds each deck with the frames package (chapter 3 on the installed model).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from attention_talk.frames import build_deck, load_deck, needs_model
from attention_talk.paths import data_dir

HARNESS = Path(__file__).with_name("format_harness.mjs")
DECKS = sorted(data_dir("slides").glob("*.y*ml"))
PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s?%")
ROWS_OF = re.compile(r"\brows? (\d[\d,]*)\s?[–-]\s?(\d[\d,]*) of (\d[\d,]*)")
KEY = re.compile(r"\b[a-z][a-z0-9_]*(?:\.[a-z0-9_]+)+\b")


@pytest.fixture(scope="module")
def all_frames(request) -> dict[str, list[tuple[str, dict]]]:
    """deck id → every frame as (where, frame dict), chapter 3's on the real model."""
    out = {}
    for path in DECKS:
        deck = load_deck(path)
        model = request.getfixturevalue("real_model") if needs_model(deck) else None
        _, frames = build_deck(deck, model=model)
        out[deck.id] = [(f"{deck.id} {i + 1}/{f.step} ({sid})", f.model_dump())
                        for i, (sid, fs) in enumerate(frames.items()) for f in fs]
    return out


def _frames(all_frames) -> Iterator[tuple[str, dict]]:
    for frames in all_frames.values():
        yield from frames


def run_drawn_shape(calls: list[tuple[list[int], list[int], list[int]]]) -> list[list[int]]:
    """The player's drawnShape (static/js/lib/format.js, which the matrix view's title and the
    tensor's table caption draw) on each (shape, row window, column window), in one node process."""
    node = shutil.which("node")
    assert node, "node is needed to run the player's label code (apt-get install nodejs)"
    payload = [["drawnShape", [list(s), list(r), list(c)]] for s, r, c in calls]
    done = subprocess.run([node, str(HARNESS)], input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def expected_label(n: int, index: list[int]) -> int:
    """One axis as it should be labelled: the full size when the window runs from the first index to
    the last (the elided ones drawn as a gap between shown ones), else the number of indices shown."""
    spans = index == sorted(set(index)) and index[0] == 0 and index[-1] == n - 1
    return n if spans else len(index)


def test_the_player_labels_a_row_and_a_crop_with_their_own_shape() -> None:
    got = run_drawn_shape([([7, 7168], [0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 7167]),
                           ([11, 11], [10], list(range(11))),
                           ([20, 20], list(range(10, 20)), list(range(10))),
                           ([7168, 128], [0, 1, 2], [0, 1, 127])])
    assert got == [[7, 7168], [1, 11], [10, 10], [3, 128]]


def test_every_shape_label_is_the_drawn_shape(all_frames) -> None:
    shown = [(where, t) for where, f in _frames(all_frames) for t in f["tensors"]]
    labels = run_drawn_shape([(t["shape"], t["row_index"], t["col_index"]) for _, t in shown])
    bad = []
    for (where, t), label in zip(shown, labels, strict=True):
        rows, cols = len(t["values"]), {len(r) for r in t["values"]}
        assert (rows, cols) == (len(t["row_index"]), {len(t["col_index"])}), f"{where} {t['name']}: values ≠ window"
        want = [expected_label(n, w) for n, w in zip(t["shape"], (t["row_index"], t["col_index"]), strict=False)]
        if label != want:
            bad.append(f"{where} {t['name']!r} ({t['label']}): labelled {label}, draws {want} "
                       f"(shape {t['shape']}, rows {t['row_index'][0]}…{t['row_index'][-1]})")
        for n, w, shown_n in zip(t["shape"], (t["row_index"], t["col_index"]), label, strict=False):
            if shown_n > len(w):  # a label larger than the window: the elided indices sit inside it
                assert w[0] == 0 and w[-1] == n - 1, f"{where} {t['name']}: elided indices at an edge"
    assert not bad, "\n".join(bad)


def _num(s: str) -> int:
    return int(s.replace(",", ""))


def test_rows_a_to_b_of_n_is_a_window_of_the_frame(all_frames) -> None:
    bad = []
    for where, f in _frames(all_frames):
        for text in [f["caption"], *(n["text"] for n in f["notes"])]:
            for a, b, n in ROWS_OF.findall(text):
                a, b, n = _num(a), _num(b), _num(n)
                if not any(t["shape"][0] == n and t["row_index"] == list(range(a - 1, b)) for t in f["tensors"]):
                    bad.append(f"{where}: “rows {a}–{b} of {n}” matches no tensor's window")
    assert not bad, "\n".join(bad)


def _numbers(o) -> Iterator[float]:
    if isinstance(o, bool):
        return
    if isinstance(o, int | float):
        yield float(o)
    elif isinstance(o, dict):
        for v in o.values():
            yield from _numbers(v)
    elif isinstance(o, list):
        for v in o:
            yield from _numbers(v)


def _outlined_means(f: dict) -> list[float]:
    """The mean of each weights tensor's outlined cells, in percent."""
    means = []
    for t in f["tensors"]:
        if t["kind"] != "weights" or not t["highlight"]["cells"]:
            continue
        at = {(r, c): (i, j) for i, r in enumerate(t["row_index"]) for j, c in enumerate(t["col_index"])}
        cells = [t["values"][at[rc][0]][at[rc][1]] for rc in map(tuple, t["highlight"]["cells"]) if rc in at]
        if cells and None not in cells:
            means.append(100 * float(np.mean(cells)))
    return means


def _carried(f: dict) -> list[float]:
    """Every number the frame carries that a percentage could state: weights (and widget figures)
    as fractions and as percentages."""
    found = [v for t in f["tensors"] if t["kind"] == "weights" for row in t["values"] for v in row if v is not None]
    found += list(_numbers([w.get("data") for w in f["widgets"]]))
    return [x for v in found for x in (v, 100 * v)]


def _states(p: str, value: float) -> bool:
    decimals = len(p.partition(".")[2])
    return math.isclose(round(value, decimals), float(p), abs_tol=0.5 * 10 ** -decimals + 1e-9) or \
        abs(value - float(p)) <= 0.5 * 10 ** -decimals + 1e-9


def _texts(f: dict) -> Iterator[str]:
    yield f["caption"]
    for n in f["notes"]:
        yield n["text"]
    for w in f["widgets"]:
        for c in (w.get("data") or {}).get("cards") or []:
            yield c.get("body") or ""


def test_every_percentage_is_a_figure_the_frame_carries(all_frames) -> None:
    bad, checked = [], 0
    for where, f in _frames(all_frames):
        single, means = _carried(f), _outlined_means(f)
        if not single and not means:
            continue  # the frame carries no figure the words could be checked against
        for text in _texts(f):
            for p in PERCENT.findall(text):
                checked += 1
                if any(_states(p, v) for v in single):
                    continue
                if any(_states(p, v) for v in means):
                    if not re.search(r"\b(mean|average|on average)\b", text):
                        bad.append(f"{where}: “{p}%” is the mean of the outlined cells; say so: {text!r}")
                    continue
                bad.append(f"{where}: “{p}%” is no figure this frame carries: {text!r}")
    assert checked, "no percentage was checked: the test reads no words"
    assert not bad, "\n".join(bad)


def _tags(o) -> Iterator[str]:
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("source", "tag") and isinstance(v, str):
                yield v
            else:
                yield from _tags(v)
    elif isinstance(o, list):
        for v in o:
            yield from _tags(v)


@pytest.fixture(scope="module")
def gguf_keys() -> set[str]:
    from gguf import GGUFReader

    from attention_talk.model.gguf_file import resolve_path

    return set(GGUFReader(resolve_path(None)).fields)


def test_every_gguf_source_tag_names_keys_the_file_has(all_frames, gguf_keys) -> None:
    bad, named = [], 0
    for where, f in _frames(all_frames):
        for tag in _tags(f["widgets"]):
            if "GGUF" not in tag:
                continue
            for key in KEY.findall(tag):
                if "." in key and not key.endswith((".gguf", ".yaml")):
                    named += 1
                    if key not in gguf_keys:
                        bad.append(f"{where}: source {tag!r} names {key!r}, which the file does not have")
    assert named, "no GGUF key was named: the test reads no source tags"
    assert not bad, "\n".join(sorted(set(bad)))


def test_the_views_title_tensors_with_the_drawn_shape() -> None:
    """The matrix's title and its table's caption write drawnShape's dimensions, not the full shape."""
    static = Path(__file__).resolve().parents[1] / "static" / "js" / "views"
    for view in ("matrix.js", "tensor-table.js"):
        code = (static / view).read_text(encoding="utf-8")
        assert "shape(drawnShape(t.shape, t.row_index, t.col_index))" in code, view
        assert "shape(t.shape)" not in code, view


def test_the_config_says_whether_d_k_was_read_or_computed(real_model, gguf_keys) -> None:
    """This file has no key_length: d_k is computed (576 / 9), and the model's config says so."""
    c = real_model.config
    has = f"{c.architecture}.attention.key_length" in gguf_keys
    assert c.head_dim_read is has
    if not has:
        assert c.head_dim * c.heads == c.d_model
