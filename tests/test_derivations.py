"""The generic derivation helpers on small arrays: sums of addends (row sums, residuals)."""

from __future__ import annotations

import numpy as np
import pytest

from attention_talk.frames.kit.derivations import addend_sum, derive_sum
from attention_talk.frames.kit.tensors import tensor
from derivation_check import check_tensor, recompute


def test_short_sums_show_every_addend() -> None:
    part = addend_sum([0.25, 0.5, 0.25], ["a", "b", "c"], text="row")
    assert part.op == "add" and [t.label for t in part.terms] == ["a", "b", "c"]
    assert [t.b for t in part.terms] == [0.25, 0.5, 0.25] and all(t.a is None for t in part.terms)
    assert (part.more, part.more_sum, part.value, part.text) == (0, 0.0, 1.0, "row")


def test_long_sums_show_a_few_addends_and_the_rest() -> None:
    v = np.random.default_rng(1).standard_normal(7168)
    part = addend_sum(v)
    assert len(part.terms) == 3 and part.more == 7165 and part.terms[0].label == "1"
    assert sum(t.b for t in part.terms) + part.more_sum == pytest.approx(v.sum())
    assert part.value == pytest.approx(v.sum())


def test_derive_sum_on_a_residual_and_a_row_sum() -> None:
    rng = np.random.default_rng(2)
    x, o = rng.standard_normal((3, 20)), rng.standard_normal((3, 20))
    t = derive_sum(tensor("x2", "X + O", "input", x + o, (0, 0, 9, 9), max_cols=4),
                   lambda r, c: [("x", float(x[r, c])), ("o", float(o[r, c]))], formula="X + O",
                   title=lambda r, c: f"{r}, {c}")
    assert t.derivation.kind == "sum" and len(t.derivation.cells) == 3 * 4
    cell = t.derivation.cells[-1]
    assert (cell.r, cell.c) == (2, 19) and cell.value == pytest.approx(x[2, 19] + o[2, 19])
    assert recompute(cell) == pytest.approx(x[2, 19] + o[2, 19])

    w = np.array([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.2, 0.3, 0.5]])
    sums = w.sum(axis=1, keepdims=True)
    s = derive_sum(tensor("sums", "Σ", "weights", sums, (0, 0, 9, 9)),
                   lambda r, c: [(k, float(w[r, j])) for j, k in enumerate("abc")], formula="Σ_j w",
                   title=lambda r, c: f"row {r}", text=lambda r, c: f"row {r}")
    assert [c.value for c in s.derivation.cells] == pytest.approx([1.0, 1.0, 1.0])
    assert s.derivation.cells[1].parts[0].text == "row 1"


def test_the_checker_catches_a_wrong_derivation() -> None:
    from attention_talk.frames.contract import Frame

    x = np.arange(4.0).reshape(2, 2)
    t = derive_sum(tensor("t", "t", "input", x, (0, 0, 9, 9)), lambda r, c: [("x", float(x[r, c])), ("one", 1.0)],
                   formula="x + 1", title=lambda r, c: "")
    f = Frame(deck="d", slide="s", slide_number=1, step=1, steps=1, caption="", narration="", tensors=[t])
    with pytest.raises(AssertionError):
        check_tensor(f, t)  # the cells say x + 1, the tensor shows x
