"""Embedding lookup and the sinusoidal positional encoding of Vaswani et al. 2017 §3.5."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import embed, sinusoidal_positions


def test_embed_picks_rows():
    table = np.arange(12.0).reshape(4, 3)
    assert embed([2, 0, 2], table).tolist() == [[6, 7, 8], [0, 1, 2], [6, 7, 8]]
    assert embed(np.array([[1], [3]]), table).shape == (2, 1, 3)
    assert embed([], table).shape == (0, 3)


@pytest.mark.parametrize(("ids", "message"), [
    ([0, 4], r"token id 4 is out of range: the table has 4 rows, so ids must be in \[0, 3\]"),
    ([-1], r"token id -1 is out of range"),
    ([1.0], "token ids must be integers, got dtype float64"),
    ([True], "token ids must be integers, got dtype bool"),
])
def test_embed_rejects_bad_ids(ids, message):
    with pytest.raises(ValueError, match=message):
        embed(ids, np.zeros((4, 3)))


def test_embed_rejects_a_table_that_is_not_a_matrix():
    with pytest.raises(ValueError, match=r"got shape \(4,\)"):
        embed([0], np.zeros(4))


def test_positions_match_the_formula_by_hand():
    pe = sinusoidal_positions(50, 8)
    assert pe.shape == (50, 8)
    for pos in (0, 1, 7, 49):
        for i in range(4):
            angle = pos / 10000 ** (2 * i / 8)
            assert pe[pos, 2 * i] == pytest.approx(math.sin(angle), abs=1e-12)
            assert pe[pos, 2 * i + 1] == pytest.approx(math.cos(angle), abs=1e-12)
    assert pe[0].tolist() == [0, 1, 0, 1, 0, 1, 0, 1]


def test_odd_width_ends_with_a_sine_and_uses_the_true_d():
    pe = sinusoidal_positions(4, 5)
    assert pe.shape == (4, 5)
    assert pe[3, 4] == pytest.approx(math.sin(3 / 10000 ** (4 / 5)), abs=1e-12)
    assert pe[3, 3] == pytest.approx(math.cos(3 / 10000 ** (2 / 5)), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), half=st.integers(1, 16), shift=st.integers(0, 30))
def test_each_pair_is_a_rotation_of_the_one_before(n, half, shift):
    """sin²+cos² = 1 per pair, and PE(pos + k) is a fixed rotation of PE(pos) (§3.5's motivation)."""
    d = 2 * half
    pe = sinusoidal_positions(n + shift, d)
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, atol=1e-12)
    freq = 10000.0 ** (-np.arange(half) * 2 / d)
    c, s = np.cos(shift * freq), np.sin(shift * freq)
    sin0, cos0 = pe[:n, 0::2], pe[:n, 1::2]
    np.testing.assert_allclose(pe[shift:, 0::2], sin0 * c + cos0 * s, atol=1e-9)
    np.testing.assert_allclose(pe[shift:, 1::2], cos0 * c - sin0 * s, atol=1e-9)


@pytest.mark.parametrize(("n", "d"), [(-1, 4), (3, -2), (2.5, 4), (True, 4)])
def test_positions_reject_bad_sizes(n, d):
    with pytest.raises(ValueError, match="must be an integer >= 0"):
        sinusoidal_positions(n, d)
