"""engine.heads: the head-job measures against a naive loop oracle, plus properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import heads


def causal_weights(rng, n: int, shape=()) -> np.ndarray:
    """Random causal attention weights: rows sum to 1 over keys 0 … i."""
    logits = rng.normal(size=(*shape, n, n)) * 2
    logits = np.where(np.tril(np.ones((n, n), bool)), logits, -np.inf)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def oracle(w: np.ndarray, measure: str, period: int | None = None) -> float:
    """One head, one measure, written as the plain loop the definitions describe."""
    n = len(w)
    picks = []
    for i in range(n):
        if measure == "previous" and i >= 1:
            picks.append(w[i][i - 1])
        elif measure == "first" and i >= 1:
            picks.append(w[i][0])
        elif measure == "induction" and period <= i < 2 * period:
            picks.append(w[i][i - period + 1])
    return sum(picks) / len(picks)


@given(st.integers(2, 9), st.integers(0, 2**16))
@settings(max_examples=40, deadline=None)
def test_measures_match_the_loop_oracle(period: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = causal_weights(rng, 2 * period, (3, 2))  # (L, h, n, n)
    for measure in heads.MEASURES:
        grid = heads.score(w, measure, period)
        assert grid.shape == (3, 2)
        for layer in range(3):
            for h in range(2):
                assert grid[layer, h] == pytest.approx(oracle(w[layer, h], measure, period), abs=1e-12)
        assert np.all((grid >= 0) & (grid <= 1))


def test_a_designed_head_scores_one_on_its_job() -> None:
    n, period = 8, 4
    prev = np.eye(n, k=-1)
    prev[0, 0] = 1
    first = np.zeros((n, n))
    first[:, 0] = 1
    ind = np.zeros((n, n))
    ind[np.arange(n), np.arange(n)] = 1
    q, k = heads.induction_targets(period)
    ind[q] = 0
    ind[q, k] = 1
    assert heads.previous_token(prev) == 1 and heads.first_token(prev) == pytest.approx(1 / 7)
    assert heads.first_token(first) == 1 and heads.previous_token(first) == pytest.approx(1 / 7)
    assert heads.induction(ind, period) == 1
    assert q.tolist() == [4, 5, 6, 7] and k.tolist() == [1, 2, 3, 4]


@given(st.integers(2, 9), st.integers(0, 2**16))
@settings(max_examples=30, deadline=None)
def test_self_and_share_match_the_loop(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    w = causal_weights(rng, n, (2,))  # (h, n, n)
    targets = np.tril(rng.random((n, n)) < 0.4)
    targets[n - 1, 0] = True  # at least one row
    for h in range(2):
        diag = [w[h][i][i] for i in range(1, n)]
        assert heads.self_token(w)[h] == pytest.approx(sum(diag) / len(diag), abs=1e-12)
        per_row = [sum(w[h][i][j] for j in range(n) if targets[i][j]) for i in range(n) if any(targets[i])]
        assert heads.share(w, targets)[h] == pytest.approx(sum(per_row) / len(per_row), abs=1e-12)
    assert heads.share(w, np.eye(n, k=-1, dtype=bool)) == pytest.approx(heads.previous_token(w))
    column = np.zeros((n, n), bool)
    column[1:, 0] = True
    assert heads.share(w, column) == pytest.approx(heads.first_token(w))


def test_best_head_is_the_first_top_scorer() -> None:
    grid = np.array([[0.1, 0.9], [0.9, 0.2]])
    assert heads.best_head(grid) == (0, 1)
    assert heads.best_head(np.array([[0.0, 0.5, 0.7]])) == (0, 2)


@pytest.mark.parametrize("call, message", [
    (lambda: heads.previous_token(np.ones((3, 2))), "(..., n, n)"),
    (lambda: heads.induction(np.ones((5, 5)) / 5, 2), "n = 2 × period = 4"),
    (lambda: heads.score(np.ones((4, 4)), "induction"), "period"),
    (lambda: heads.score(np.ones((4, 4)), "middle"), "unknown measure"),
    (lambda: heads.induction_targets(0), "period"),
    (lambda: heads.best_head(np.ones(3)), "(layers, heads)"),
    (lambda: heads.share(np.ones((4, 4)) / 4, np.ones((3, 3), bool)), "(4, 4) boolean"),
    (lambda: heads.share(np.ones((4, 4)) / 4, np.ones((4, 4))), "(4, 4) boolean"),
    (lambda: heads.share(np.ones((4, 4)) / 4, np.zeros((4, 4), bool)), "no cell"),
])
def test_bad_input_names_the_problem(call, message) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()
