"""DeepSeek sparse attention (engine/dsa.py) against loops written here and against dense attention
(engine/attention.py, itself checked against a loop oracle in test_engine_attention.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import attend
from attention_talk.engine.dsa import dsa, index_scores, seeded_indexer, select_top_k, sparse_attend


def naive_index(q_i, k_i, w):
    heads, n, width = len(q_i), len(q_i[0]), len(k_i[0])
    out = [[-math.inf] * n for _ in range(n)]
    for t in range(n):
        for s in range(t + 1):
            out[t][s] = sum(w[t][j] * max(0.0, sum(q_i[j][t][c] * k_i[s][c] for c in range(width)))
                            for j in range(heads))
    return np.array(out)


def inputs(seed, n, d=3, heads=2, width=3):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, d + 1))
    return q, k, v, *seeded_indexer(n, heads, width, seed)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 7))
def test_index_scores_equal_the_loop(seed, n) -> None:
    *_, q_i, k_i, w = inputs(seed, n)
    np.testing.assert_allclose(index_scores(q_i, k_i, w), naive_index(q_i.tolist(), k_i.tolist(), w.tolist()),
                               atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 8), extra=st.integers(0, 3))
def test_k_at_least_n_is_dense_attention_exactly(seed, n, extra) -> None:
    q, k, v, q_i, k_i, w = inputs(seed, n)
    got = dsa(q, k, v, q_i, k_i, w, top_k=n + extra)
    dense = attend(q, k, v, causal=True)
    np.testing.assert_allclose(got.attention.weights, dense.weights, atol=1e-14)
    np.testing.assert_allclose(got.output, dense.output, atol=1e-14)
    assert got.keep.tolist() == np.tril(np.ones((n, n), dtype=bool)).tolist()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 9), top_k=st.integers(1, 5))
def test_each_row_keeps_the_k_largest_and_equals_dense_with_the_rest_masked(seed, n, top_k) -> None:
    q, k, v, q_i, k_i, w = inputs(seed, n)
    got = dsa(q, k, v, q_i, k_i, w, top_k=top_k)
    index = naive_index(q_i.tolist(), k_i.tolist(), w.tolist())
    for t in range(n):
        kept = [s for s in range(n) if got.keep[t, s]]
        assert len(kept) == min(top_k, t + 1)
        assert np.count_nonzero(got.attention.weights[t]) <= top_k
        assert all(s <= t for s in kept)
        dropped = [s for s in range(t + 1) if s not in kept]
        assert all(index[t][a] >= index[t][b] for a in kept for b in dropped)
    mask = np.where(got.keep, 0.0, -np.inf)
    dense = attend(q, k, v, mask=mask)
    np.testing.assert_allclose(got.attention.weights, dense.weights, atol=1e-14)
    np.testing.assert_allclose(got.output, dense.output, atol=1e-14)


def test_ties_go_to_the_earlier_key() -> None:
    index = np.array([[2.0, 5.0, 2.0, 2.0, -np.inf]])
    assert select_top_k(index, 2).tolist() == [[True, True, False, False, False]]
    assert select_top_k(index, 3).tolist() == [[True, True, True, False, False]]
    assert select_top_k(index, 9).tolist() == [[True, True, True, True, False]]
    assert select_top_k(np.zeros((2, 3)), 1).tolist() == [[True, False, False], [True, False, False]]


def test_heads_share_one_selection_and_one_latent() -> None:
    rng = np.random.default_rng(4)
    q, kv = rng.normal(size=(3, 5, 4)), rng.normal(size=(5, 4))
    keep = select_top_k(index_scores(*seeded_indexer(5, 2, 3, 4)), 2)
    got = sparse_attend(q, kv, kv, keep)
    for i in range(3):
        one = attend(q[i], kv, kv, mask=np.where(keep, 0.0, -np.inf))
        np.testing.assert_allclose(got.weights[i], one.weights, atol=1e-14)
        np.testing.assert_allclose(got.output[i], one.output, atol=1e-14)


def test_bad_inputs_are_refused_by_name() -> None:
    q, k, v, q_i, k_i, w = inputs(0, 4)
    with pytest.raises(ValueError, match="top_k must be a positive integer, got 0"):
        dsa(q, k, v, q_i, k_i, w, top_k=0)
    with pytest.raises(ValueError, match=r"w_I must have shape \(n, H_I\)"):
        index_scores(q_i, k_i, w[:, :1])
    with pytest.raises(ValueError, match="k_I must have one row per query"):
        index_scores(q_i, k_i[:3], w)
    with pytest.raises(ValueError, match="keep must be booleans"):
        sparse_attend(q, k, v, np.ones((4, 4)))
    with pytest.raises(ValueError, match="index scores must be finite or -inf"):
        select_top_k(np.array([[np.nan]]), 1)
    with pytest.raises(ValueError, match="Q and K must have the same width"):
        sparse_attend(q, k[:, :2], v, np.ones((4, 4), dtype=bool))
