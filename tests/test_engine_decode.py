"""Decoding token by token through a KV cache reproduces full causal attention."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import KVCache, attend, decode, decode_step


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 40), d_k=st.integers(1, 5), d_v=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_decode_equals_full_causal_attention(n, d_k, d_v, seed):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n, d_k)), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    full = attend(q, k, v, causal=True)
    got = decode(q, k, v)
    np.testing.assert_allclose(got.output, full.output, atol=1e-12, rtol=0)
    for t, step in enumerate(got.steps):
        np.testing.assert_allclose(step.attention.weights[0], full.weights[t, : t + 1], atol=1e-12)


def test_cache_sizes_grow_one_token_per_step():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    got = decode(q, k, v)
    assert got.cache_sizes == [1, 2, 3, 4, 5]
    assert got.cache_numbers == [5, 10, 15, 20, 25]  # t · (d_k + d_v)
    assert [s.position for s in got.steps] == [0, 1, 2, 3, 4]
    assert got.steps[3].attention.k.shape == (4, 3)


def test_first_step_returns_its_own_value():
    got = decode(np.ones((1, 2)), np.ones((1, 2)), np.array([[3.0, -1.0]]))
    assert got.output.tolist() == [[3.0, -1.0]]


def test_cache_grows_past_its_capacity_and_keeps_old_rows():
    cache = KVCache(d_k=2, d_v=1, capacity=1)
    rows = np.arange(20.0).reshape(10, 2)
    for r in rows:
        cache.append(r, r[:1])
    assert len(cache) == 10 and cache.numbers == 30
    np.testing.assert_array_equal(cache.keys, rows)
    np.testing.assert_array_equal(cache.values, rows[:, :1])
    with pytest.raises(ValueError):
        cache.keys[0, 0] = 1.0  # read-only view


def test_step_by_step_with_custom_scale():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    cache = KVCache(3, 3)
    rows = [decode_step(q[t], k[t], v[t], cache, scale=0.5).output for t in range(4)]
    np.testing.assert_allclose(rows, attend(q, k, v, causal=True, scale=0.5).output, atol=1e-12)


def test_errors_name_the_shapes():
    cache = KVCache(2, 2)
    with pytest.raises(ValueError, match=r"shapes \(2,\) and \(2,\), got \(3,\) and \(2,\)"):
        cache.append(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match=r"width d_k = 2, got shape \(3,\)"):
        decode_step(np.ones(3), np.ones(2), np.ones(2), cache)
    with pytest.raises(ValueError, match=r"Q is \(2, 2\), K is \(3, 2\)"):
        decode(np.ones((2, 2)), np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(ValueError, match="NaN"):
        cache.append(np.array([np.nan, 1.0]), np.ones(2))
    assert len(cache) == 0
