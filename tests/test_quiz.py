"""A step's ``question:`` (frames/quiz.py): validated when the deck loads (slide, step, field named),
answered from the reveal step's tensor by the engine, and checked here against plain loops over the
same tensor; the pick encoding rooms check answers with, property-tested."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from attention_talk.deck import DeckError
from attention_talk.formatting import number
from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.frames.quiz import ESTIMATE_STEPS, bucket, pick_fits, question_shape

SLIDES = Path(__file__).resolve().parents[1] / "slides"


def softmax_deck(tmp_path: Path, question: dict, step: int = 6) -> Path:
    """The step-by-step deck cut to its softmax slide, with ``question`` on ``step`` (1-based)."""
    data = yaml.safe_load((SLIDES / "attention-step-by-step.yaml").read_text())
    data["slides"] = [s for s in data["slides"] if s["id"] == "softmax"]
    data["slides"][0]["steps"][step - 1]["question"] = question
    path = tmp_path / f"{data['id']}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
    return path


def built(tmp_path: Path, question: dict, step: int = 6):
    frames = build_deck_frames(load_deck(softmax_deck(tmp_path, question, step)))["softmax"]
    return frames[step - 1], frames[step]


def weights_of(frame, name="weights"):
    return next(t for t in frame.tensors if t.name == name)


def test_token_question_answers_the_rows_largest_weight(tmp_path: Path) -> None:
    asked, shown = built(tmp_path, {"kind": "token", "prompt": "Which word will dog read most?",
                                    "answer": {"tensor": "weights", "row": "dog"}})
    t = weights_of(shown)
    row = t.values[t.rows.index("dog")]
    best = 0
    for c in range(len(row)):  # the oracle: a plain loop
        if row[c] is not None and (row[best] is None or row[c] > row[best]):
            best = c
    assert asked.question.choices == t.cols and asked.reveal is None and asked.question.kind == "token"
    assert shown.reveal.answer == [best] and shown.reveal.text == t.cols[best]
    assert shown.reveal.figures == [[number(v, t.digits) for v in row]]
    assert number(row[best], t.digits) in shown.reveal.derivation[-1]
    assert "answer" not in asked.question.model_dump()
    # the cell the drawing outlines on the reveal: the tensor's own indices of row dog, column best
    assert shown.reveal.tensor == "weights"
    assert shown.reveal.cell == [t.row_index[t.rows.index("dog")], t.col_index[best]]


def test_every_reveal_names_the_cell_it_was_read_from(tmp_path: Path) -> None:
    """Whatever the kind, the outlined cell holds the figure the reveal's text states."""
    for q in ({"kind": "token", "prompt": "Which word will fire read most?",
               "answer": {"tensor": "weights", "row": "fire"}},
              {"kind": "cell", "prompt": "Which cell is largest?", "answer": {"tensor": "weights"}},
              {"kind": "order", "prompt": "Order the words by by's weights",
               "answer": {"tensor": "weights", "row": "by"}},
              {"kind": "estimate", "prompt": "How much does fire give old?",
               "answer": {"tensor": "weights", "row": "fire", "col": "old"}}):
        _, shown = built(tmp_path, q)
        t = weights_of(shown)
        r, c = t.row_index.index(shown.reveal.cell[0]), t.col_index.index(shown.reveal.cell[1])
        value = number(t.values[r][c], t.digits)
        if q["kind"] == "estimate":
            assert shown.reveal.text == value
        else:
            assert value in shown.reveal.derivation[-1] or value in shown.reveal.derivation[0], (q, value)
            assert t.values[r][c] == max(v for row in (t.values if q["kind"] == "cell" else [t.values[r]])
                                         for v in row if v is not None)


def test_cell_order_estimate_answers(tmp_path: Path) -> None:
    _, shown = built(tmp_path, {"kind": "cell", "prompt": "Which cell is largest?", "answer": {"tensor": "weights"}})
    t = weights_of(shown)
    cells = [(r, c) for r in range(len(t.rows)) for c in range(len(t.cols)) if t.values[r][c] is not None]
    top = cells[0]
    for r, c in cells:
        if t.values[r][c] > t.values[top[0]][top[1]]:
            top = (r, c)
    assert shown.reveal.answer == list(top)
    _, shown = built(tmp_path, {"kind": "order", "prompt": "Rank the keys",
                                "answer": {"tensor": "weights", "row": "dog"}})
    row = [v if v is not None else float("-inf") for v in t.values[t.rows.index("dog")]]
    ranked = []
    for _ in row:  # selection by plain loops: the largest left, ties to the first column
        rest = [c for c in range(len(row)) if c not in ranked]
        best = rest[0]
        for c in rest:
            if row[c] > row[best]:
                best = c
        ranked.append(best)
    assert shown.reveal.answer == ranked
    _, shown = built(tmp_path, {"kind": "estimate", "prompt": "How much does dog read old?",
                                "answer": {"tensor": "weights", "row": "dog", "col": "old"}})
    t = weights_of(shown)
    value = t.values[t.rows.index("dog")][t.cols.index("old")]
    marks = [k / ESTIMATE_STEPS for k in range(ESTIMATE_STEPS + 1)]  # a weight's slider: 0 … 1
    nearest = min(range(len(marks)), key=lambda k: abs(marks[k] - value))
    assert shown.reveal.answer == [nearest] and shown.reveal.text == number(value, t.digits)
    assert shown.reveal.question.marks == [number(m, t.digits) for m in marks]
    assert len(shown.reveal.figures[0]) == ESTIMATE_STEPS + 1


@pytest.mark.parametrize(("question", "words"), [
    ({"kind": "token", "prompt": "Which?", "answer": {"tensor": "weights"}},
     "question: answer: a token question names a row and no col"),
    ({"kind": "guess", "prompt": "Which?", "answer": {"tensor": "weights"}}, "question.kind: Input should be"),
    ({"kind": "cell", "prompt": "Which of 7?", "answer": {"tensor": "weights"}},
     "question.prompt: the number '7' is typed"),
    ({"kind": "cell", "prompt": "Which?", "answer": {"tensor": "weights"}, "value": 3}, "question.value: Extra inputs"),
])
def test_a_bad_question_is_refused_by_name(tmp_path: Path, question: dict, words: str) -> None:
    with pytest.raises(DeckError) as err:
        load_deck(softmax_deck(tmp_path, question))
    assert any("slide 1 (softmax) › step 6 › field " + words.split(": ", 1)[0] in e and words.split(": ", 1)[1] in e
               for e in err.value.errors), err.value.errors


def test_an_answer_naming_nothing_drawn_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DeckError) as err:
        built(tmp_path, {"kind": "token", "prompt": "Which?", "answer": {"tensor": "nope", "row": "dog"}})
    assert ("step 6 › field question.answer: tensor: the reveal step (softmax step 7) draws no tensor 'nope'"
            in str(err.value))
    with pytest.raises(DeckError) as err:
        built(tmp_path, {"kind": "token", "prompt": "Which?", "answer": {"tensor": "weights", "row": "cat"}})
    assert "'weights' has no row 'cat'; its rows: the, old, dog" in str(err.value)


@given(st.sampled_from(["token", "estimate"]), st.integers(1, 30), st.lists(st.integers(-5, 40), max_size=3))
def test_a_pick_fits_only_its_range(kind: str, n: int, pick: list[int]) -> None:
    fits = pick_fits((kind, n, 0), pick) is None
    assert fits == (len(pick) == 1 and 0 <= pick[0] < n)


@given(st.permutations(range(5)), st.lists(st.integers(0, 5), max_size=6))
def test_an_order_is_a_permutation(perm: list[int], other: list[int]) -> None:
    assert pick_fits(("order", 5, 0), list(perm)) is None
    assert (pick_fits(("order", 5, 0), other) is None) == (sorted(other) == [0, 1, 2, 3, 4])
    assert bucket(list(perm)) == ",".join(map(str, perm))


def test_shape_of_a_cell_question(tmp_path: Path) -> None:
    asked, _ = built(tmp_path, {"kind": "cell", "prompt": "Which cell?", "answer": {"tensor": "weights"}})
    kind, rows, cols = question_shape(asked.question)
    assert (kind, rows, cols) == ("cell", 7, 7)
    assert pick_fits((kind, rows, cols), [6, 6]) is None and pick_fits((kind, rows, cols), [7, 0]) is not None

