"""flash_attend equals attend for every block size; its tiles follow Algorithm 1 of Dao et al. 2022."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import attend, flash_attend


def random_qkv(seed, n_q, n_k, d_k, d_v):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))


@pytest.mark.parametrize("block_size", [1, 2, 3, 4, 7, 8, 50])
@pytest.mark.parametrize("causal", [False, True])
def test_equals_attend_for_every_block_size(block_size, causal):
    q, k, v = random_qkv(0, 7, 7, 4, 3)
    want = attend(q, k, v, causal=causal).output
    got = flash_attend(q, k, v, block_size=block_size, causal=causal)
    np.testing.assert_allclose(got.output, want, atol=1e-9, rtol=0)


@settings(max_examples=60, deadline=None)
@given(n_q=st.integers(1, 12), n_k=st.integers(1, 12), d_k=st.integers(1, 5), d_v=st.integers(1, 5),
       block_size=st.integers(1, 14), causal=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_equals_attend_property(n_q, n_k, d_k, d_v, block_size, causal, seed):
    q, k, v = random_qkv(seed, n_q, n_k, d_k, d_v)
    want = attend(q, k, v, causal=causal).output
    got = flash_attend(q, k, v, block_size=block_size, causal=causal)
    np.testing.assert_allclose(got.output, want, atol=1e-9, rtol=0)
    assert np.all(np.isfinite(got.output))


def test_large_scores_do_not_overflow():
    q, k, v = random_qkv(1, 6, 6, 3, 2)
    got = flash_attend(q * 40, k * 40, v, block_size=2)
    np.testing.assert_allclose(got.output, attend(q * 40, k * 40, v).output, atol=1e-9)


def test_custom_scale():
    q, k, v = random_qkv(2, 5, 5, 4, 4)
    got = flash_attend(q, k, v, block_size=2, scale=0.3, causal=True)
    np.testing.assert_allclose(got.output, attend(q, k, v, scale=0.3, causal=True).output, atol=1e-9)
    assert got.scale == 0.3


def test_tiles_order_and_ranges_non_causal():
    q, k, v = random_qkv(3, 5, 5, 2, 2)
    f = flash_attend(q, k, v, block_size=2)
    # Algorithm 1: outer loop over key blocks j, inner loop over query blocks i; 5 rows -> 3 blocks
    assert [(t.j, t.i) for t in f.tiles] == [(j, i) for j in range(3) for i in range(3)]
    assert [t.rows for t in f.tiles[:3]] == [(0, 2), (2, 4), (4, 5)]
    assert f.tiles[-1].cols == (4, 5) and f.tiles[-1].s.shape == (1, 1)
    assert f.skipped == []


def test_causal_skips_future_tiles_and_masks_the_diagonal():
    q, k, v = random_qkv(4, 6, 6, 2, 2)
    f = flash_attend(q, k, v, block_size=2, causal=True)
    done = {(t.i, t.j) for t in f.tiles}
    assert done == {(i, j) for i in range(3) for j in range(3) if j <= i}
    assert sorted(f.skipped) == [(0, 1), (0, 2), (1, 2)]
    diagonal = [t for t in f.tiles if t.i == t.j]
    assert all(t.masked for t in diagonal)
    assert all(not t.masked for t in f.tiles if t.i != t.j)
    assert np.isneginf(diagonal[0].s[0, 1]) and np.isfinite(diagonal[0].s[1, 0])
    assert diagonal[0].p_tilde[0, 1] == 0.0


def test_each_tile_follows_the_update_rule():
    q, k, v = random_qkv(5, 4, 6, 3, 2)
    f = flash_attend(q, k, v, block_size=3)
    scale = 1 / math.sqrt(3)
    state = {}  # query block -> (m, l, o) before the tile
    for t in f.tiles:
        r, c = slice(*t.rows), slice(*t.cols)
        s = q[r] @ k[c].T * scale
        np.testing.assert_allclose(t.s, s, atol=1e-12)
        np.testing.assert_allclose(t.m_tilde, s.max(axis=1), atol=1e-12)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        np.testing.assert_allclose(t.l_tilde, p.sum(axis=1), atol=1e-12)
        m, ell, o = state.get(t.i, (np.full(len(s), -np.inf), np.zeros(len(s)), np.zeros((len(s), 2))))
        m_new = np.maximum(m, t.m_tilde)
        ell_new = np.exp(m - m_new) * ell + np.exp(t.m_tilde - m_new) * t.l_tilde
        o_new = ((ell * np.exp(m - m_new))[:, None] * o + np.exp(t.m_tilde - m_new)[:, None] * (p @ v[c])) \
            / ell_new[:, None]
        np.testing.assert_allclose(t.m, m_new, atol=1e-12)
        np.testing.assert_allclose(t.l, ell_new, atol=1e-12)
        np.testing.assert_allclose(t.o, o_new, atol=1e-12)
        state[t.i] = (t.m, t.l, t.o)
    # after the last key block the running O of each query block is the answer
    want = attend(q, k, v)
    np.testing.assert_allclose(f.output, want.output, atol=1e-12)
    np.testing.assert_allclose(f.m, want.scaled.max(axis=1), atol=1e-12)


def test_fully_masked_rows_give_zeros():
    # causal with more queries than keys: the first queries see no key at all
    q, k, v = random_qkv(6, 5, 2, 2, 2)
    f = flash_attend(q, k, v, block_size=2, causal=True)
    assert f.output[:3].tolist() == [[0.0, 0.0]] * 3
    np.testing.assert_allclose(f.output, attend(q, k, v, causal=True).output, atol=1e-12)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, None])
def test_block_size_must_be_a_positive_integer(bad):
    q, k, v = random_qkv(0, 2, 2, 2, 2)
    with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
        flash_attend(q, k, v, block_size=bad)


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match=r"Q is \(2, 3\), K is \(2, 4\)"):
        flash_attend(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)), block_size=1)
    with pytest.raises(ValueError, match=r"K is \(3, 3\), V is \(2, 3\)"):
        flash_attend(np.ones((2, 3)), np.ones((3, 3)), np.ones((2, 3)), block_size=1)
