"""The shared derivation checker: redo every cell's derivation from its parts alone and compare it with
the number the tensor displays. Used by the chapter tests (tests/test_chapter1.py, test_chapter2.py)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from attention_talk.frames.contract import CellDerivation, Frame, Tensor
from attention_talk.frames.kit.derivations import ALL_TERMS_UP_TO


def recompute(cell: CellDerivation) -> float | None:
    """Redo a cell's derivation from its parts alone; returns the cell value it implies."""
    value: float | None = None
    for part in cell.parts:
        if part.op in ("sum", "add", "softmax"):  # long sums: a few terms and the rest, never all of them
            assert len(part.terms) <= ALL_TERMS_UP_TO if part.more else part.more_sum == 0.0, part
        if part.op == "sum":
            value = sum(t.a * t.b for t in part.terms) + part.more_sum
            assert value == pytest.approx(part.value, rel=1e-9, abs=1e-9)
        elif part.op == "add":
            assert all(t.a is None for t in part.terms), part
            value = sum(t.b for t in part.terms) + part.more_sum
        elif part.op == "scale":
            value = value * part.factor
        elif part.op == "mask":
            value = None if part.value is None else value
        elif part.op == "softmax":
            for t in part.terms:
                expected = 0.0 if t.a is None else math.exp(t.a - part.factor)
                assert t.b == pytest.approx(expected, rel=1e-9, abs=1e-12)
            assert sum(t.b for t in part.terms) + part.more_sum == pytest.approx(part.total)
            value = part.num / part.total
        elif part.op == "copy":
            value = part.value
        if part.value is None or value is None:
            assert part.value is None and value is None, part
        else:
            assert value == pytest.approx(part.value, rel=1e-9, abs=1e-9)
    return value


def all_derivations(frames_by_slide: dict[str, list[Frame]]) -> Iterator[tuple[Frame, Tensor]]:
    for slide_frames in frames_by_slide.values():
        for f in slide_frames:
            for t in f.tensors:
                if t.derivation:
                    yield f, t


def missing_derivations(frames_by_slide: dict[str, list[Frame]]) -> set[tuple[str, int, str]]:
    """(slide, step, tensor) of every tensor drawn without a derivation."""
    return {(f.slide, f.step, t.name) for fs in frames_by_slide.values() for f in fs for t in f.tensors
            if t.derivation is None}


def check_tensor(f: Frame, t: Tensor) -> int:
    """Every displayed cell has exactly one derivation, and each recomputes the displayed value."""
    where = (f.slide, f.step, t.name)
    shown = {(r, c): t.values[i][j] for i, r in enumerate(t.row_index) for j, c in enumerate(t.col_index)}
    keys = [(c.r, c.c) for c in t.derivation.cells]
    assert len(keys) == len(set(keys)) and set(keys) == set(shown), where
    for cell in t.derivation.cells:
        value = recompute(cell)
        displayed = shown[cell.r, cell.c]
        if displayed is None:
            assert value is None and cell.value is None, (*where, cell.r, cell.c)
        else:
            assert value == pytest.approx(displayed, abs=2e-6), (*where, cell.r, cell.c)
            assert cell.value == pytest.approx(displayed, abs=2e-6), (*where, cell.r, cell.c)
    return len(keys)


def check_all(frames_by_slide: dict[str, list[Frame]]) -> int:
    """Check every derivation of a deck; returns how many cells were checked."""
    return sum(check_tensor(f, t) for f, t in all_derivations(frames_by_slide))
