"""RoPE (engine/rope.py) against a loop oracle written here, and its defining property: after
rotation, a query-key score depends on the two positions only through their offset."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import rope, rope_angles, rope_frequencies, rope_matrix


def oracle_rope(x, position, base, pairs):
    """One vector, plain Python: pair i turned by position · base^(-2i/d)."""
    d = len(x)
    out = list(x)
    for i in range(d // 2):
        angle = position * base ** (-2 * i / d)
        a, b = (2 * i, 2 * i + 1) if pairs == "adjacent" else (i, i + d // 2)
        out[a] = x[a] * math.cos(angle) - x[b] * math.sin(angle)
        out[b] = x[a] * math.sin(angle) + x[b] * math.cos(angle)
    return out


@pytest.mark.parametrize("pairs", ["adjacent", "halves"])
def test_rope_matches_the_loop_oracle(pairs: str) -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(3, 5, 8))  # (heads, n, d)
    got = rope(x, base=100.0, pairs=pairs)
    for h in range(3):
        for p in range(5):
            np.testing.assert_allclose(got[h, p], oracle_rope(x[h, p].tolist(), p, 100.0, pairs), atol=1e-12)


def test_position_zero_is_the_identity_and_lengths_are_kept() -> None:
    x = np.random.default_rng(2).normal(size=(6, 16))
    r = rope(x, base=10_000.0)
    np.testing.assert_array_equal(r[0], x[0])
    np.testing.assert_allclose(np.linalg.norm(r, axis=1), np.linalg.norm(x, axis=1), rtol=1e-12)


def test_frequencies_and_angles() -> None:
    np.testing.assert_allclose(rope_frequencies(4, 100.0), [1.0, 0.1])
    np.testing.assert_allclose(rope_angles([0, 2], 4, 100.0), [[0, 0], [2.0, 0.2]])


def test_rope_matrix_is_an_orthogonal_block_rotation() -> None:
    r = rope_matrix(3, 6, base=10.0)
    np.testing.assert_allclose(r @ r.T, np.eye(6), atol=1e-12)
    x = np.random.default_rng(3).normal(size=(4, 6))
    np.testing.assert_allclose(rope(x, base=10.0)[3], r @ x[3], atol=1e-12)
    assert r[0, 2] == 0 and r[2, 0] == 0  # pairs (0,1), (2,3), (4,5) do not mix


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.sampled_from([2, 4, 8, 64]), p=st.integers(0, 500),
       s=st.integers(0, 500), shift=st.integers(-200, 200), pairs=st.sampled_from(["adjacent", "halves"]),
       base=st.sampled_from([10_000.0, 100_000.0, 50.0]))
def test_score_after_rotation_depends_only_on_the_offset(seed, d, p, s, shift, pairs, base) -> None:
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=d), rng.normal(size=d)

    def score(pq: int, pk: int) -> float:
        rq = rope(q[None], np.array([pq]), base=base, pairs=pairs)[0]
        rk = rope(k[None], np.array([pk]), base=base, pairs=pairs)[0]
        return float(rq @ rk)

    shifted = (p + shift, s + shift) if min(p + shift, s + shift) >= 0 else (p, s)
    assert score(*shifted) == pytest.approx(score(p, s), rel=1e-9, abs=1e-9)
    assert score(p, s) == pytest.approx(score(p - s, 0) if p >= s else score(0, s - p), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: rope(np.ones((2, 3))), "even width"),
    (lambda: rope(np.ones(4)), r"\(\.\.\., n, d\)"),
    (lambda: rope(np.ones((2, 4)), [0]), "one entry per row"),
    (lambda: rope(np.ones((2, 4)), pairs="neox"), "pairs must be one of"),
    (lambda: rope_frequencies(4, base=1.0), "base must be"),
])
def test_bad_inputs_are_named(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
