"""attend / multi_head / softmax against a naive loop oracle written here, independently."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import attend, causal_mask, multi_head, padding_mask, softmax


def oracle_attention(q, k, v, *, causal=False, scale=None):
    """Plain-Python scaled dot-product attention: loops over i, j, math.exp, own max subtraction."""
    n_q, d_k = len(q), len(q[0])
    n_k, d_v = len(k), len(v[0])
    scale = 1 / math.sqrt(d_k) if scale is None else scale
    offset = n_k - n_q
    out = []
    for i in range(n_q):
        allowed = [j for j in range(n_k) if not causal or j <= i + offset]
        if not allowed:
            out.append([0.0] * d_v)
            continue
        logits = {j: sum(q[i][c] * k[j][c] for c in range(d_k)) * scale for j in allowed}
        top = max(logits.values())
        exps = {j: math.exp(x - top) for j, x in logits.items()}
        total = sum(exps.values())
        out.append([sum(exps[j] / total * v[j][c] for j in allowed) for c in range(d_v)])
    return np.array(out).reshape(n_q, d_v)


def oracle_multi_head(x, w_q, w_k, w_v, w_o, heads, causal=False):
    d_k, d_v = w_q.shape[1] // heads, w_v.shape[1] // heads
    concat = []
    for hd in range(heads):
        q = (x @ w_q[:, hd * d_k:(hd + 1) * d_k]).tolist()
        k = (x @ w_k[:, hd * d_k:(hd + 1) * d_k]).tolist()
        v = (x @ w_v[:, hd * d_v:(hd + 1) * d_v]).tolist()
        concat.append(oracle_attention(q, k, v, causal=causal))
    return np.concatenate(concat, axis=1) @ w_o


SHAPES = [(1, 1, 1, 1), (3, 3, 2, 4), (7, 7, 4, 4), (4, 9, 3, 2), (9, 4, 5, 3), (6, 6, 8, 1)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("n_q", "n_k", "d_k", "d_v"), SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_attend_matches_oracle(seed, n_q, n_k, d_k, d_v, causal):
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))
    got = attend(q, k, v, causal=causal)
    want = oracle_attention(q.tolist(), k.tolist(), v.tolist(), causal=causal)
    np.testing.assert_allclose(got.output, want, atol=1e-9, rtol=0)
    np.testing.assert_allclose(got.scores, q @ k.T, atol=1e-12)
    np.testing.assert_allclose(got.scaled, got.scores / math.sqrt(d_k), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize(("n", "d", "heads", "d_out"), [(5, 6, 2, 6), (4, 8, 4, 3), (3, 3, 1, 3)])
def test_multi_head_matches_oracle(seed, causal, n, d, heads, d_out):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v = (rng.normal(size=(d, d)) for _ in range(3))
    w_o = rng.normal(size=(d, d_out))
    got = multi_head(x, w_q, w_k, w_v, w_o, heads=heads, causal=causal)
    np.testing.assert_allclose(got.output, oracle_multi_head(x, w_q, w_k, w_v, w_o, heads, causal),
                               atol=1e-9, rtol=0)
    np.testing.assert_allclose(got.sum_of_heads, got.concat @ w_o, atol=1e-12)
    assert len(got.heads) == heads


def test_multi_head_cross_attention_matches_oracle():
    rng = np.random.default_rng(5)
    x, ctx = rng.normal(size=(3, 4)), rng.normal(size=(6, 4))
    w_q, w_k, w_v, w_o = (rng.normal(size=(4, 4)) for _ in range(4))
    got = multi_head(x, w_q, w_k, w_v, w_o, heads=2, context=ctx)
    want = np.concatenate([oracle_attention((x @ w_q[:, s]).tolist(), (ctx @ w_k[:, s]).tolist(),
                                            (ctx @ w_v[:, s]).tolist()) for s in (slice(0, 2), slice(2, 4))],
                          axis=1) @ w_o
    np.testing.assert_allclose(got.output, want, atol=1e-9, rtol=0)
    assert got.heads[0].weights.shape == (3, 6)


# ---- the walkthrough's two-head example (FACTS.md) ------------------------------------------------

def test_two_head_walkthrough_example():
    x = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], dtype=float)  # river, bank, flooded
    select = np.eye(4)  # head 1 reads features 1-2, head 2 features 3-4
    mh = multi_head(x, select, select, select, np.eye(4), heads=2, scale=1 / math.sqrt(2))
    river = 0
    assert mh.heads[0].weights[river].round(3).tolist() == [0.401, 0.198, 0.401]
    assert mh.heads[0].output[river].round(3).tolist() == [0.802, 0.599]
    assert mh.heads[1].output[river].round(3).tolist() == [0.503, 0.248]
    assert mh.concat[river].round(3).tolist() == [0.802, 0.599, 0.503, 0.248]
    # the default scale 1/√d_k with d_k = 2 is the same thing
    default = multi_head(x, select, select, select, np.eye(4), heads=2)
    np.testing.assert_array_equal(default.concat, mh.concat)


def test_sum_of_heads_equals_concat_times_w_o():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 6))
    w_q, w_k, w_v = (rng.normal(size=(6, 6)) for _ in range(3))
    w_o = rng.normal(size=(6, 4))
    mh = multi_head(x, w_q, w_k, w_v, w_o, heads=3)
    np.testing.assert_allclose(mh.sum_of_heads, mh.output, atol=1e-12)
    np.testing.assert_allclose(mh.head_outputs[1], mh.heads[1].output @ w_o[2:4], atol=1e-12)


# ---- properties -----------------------------------------------------------------------------------

matrix_sizes = st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.integers(1, 4))


@settings(max_examples=40, deadline=None)
@given(sizes=matrix_sizes, seed=st.integers(0, 2**32 - 1), causal=st.booleans())
def test_weight_rows_sum_to_one_and_masked_weights_are_zero(sizes, seed, causal):
    n_q, n_k, d_k, d_v = sizes
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(n_q, d_k)), rng.normal(size=(n_k, d_k)), rng.normal(size=(n_k, d_v))
    keep = rng.random(n_k) < 0.7
    keep[0] = True
    a = attend(q, k, v, causal=causal, mask=padding_mask(keep, n_q))
    blocked = np.isneginf(a.mask)
    assert np.all(a.weights[blocked] == 0.0)
    row_has_any = ~blocked.all(axis=1)
    np.testing.assert_allclose(a.weights[row_has_any].sum(axis=1), 1.0, atol=1e-12)
    assert np.all(a.weights[~row_has_any] == 0.0)
    assert np.all(np.isfinite(a.output))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 7), d=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_permuting_tokens_permutes_outputs(n, d, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    perm = rng.permutation(n)
    a, b = attend(x, x, x), attend(x[perm], x[perm], x[perm])
    np.testing.assert_allclose(b.output, a.output[perm], atol=1e-12)


def test_all_neg_inf_row_gives_zeros_not_nan():
    mask = np.zeros((2, 3))
    mask[1] = -np.inf
    a = attend(np.ones((2, 2)), np.ones((3, 2)), np.arange(6.0).reshape(3, 2), mask=mask)
    assert a.weights[1].tolist() == [0.0, 0.0, 0.0]
    assert a.output[1].tolist() == [0.0, 0.0]
    assert softmax(np.full((1, 4), -np.inf)).tolist() == [[0.0, 0.0, 0.0, 0.0]]


@settings(max_examples=30, deadline=None)
@given(big=st.floats(1e3, 1e308), temperature=st.floats(1e-3, 10.0))
def test_softmax_of_huge_values_does_not_overflow(big, temperature):
    w = softmax(np.array([big, big, big / 2, -big]), temperature=temperature)
    assert np.all(np.isfinite(w))
    assert w[0] == pytest.approx(0.5) and w[1] == pytest.approx(0.5)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), t=st.floats(0.05, 20.0))
def test_temperature_sharpens_and_flattens(seed, t):
    x = np.random.default_rng(seed).normal(size=5)
    np.testing.assert_allclose(softmax(x, temperature=t), softmax(x / t), atol=1e-12)
    top = np.argmax(x)
    if t < 1:
        assert softmax(x, temperature=t)[top] >= softmax(x)[top] - 1e-12
    else:
        assert softmax(x, temperature=t)[top] <= softmax(x)[top] + 1e-12


def test_temperature_limits():
    x = np.array([1.0, 3.0, 2.0])
    np.testing.assert_allclose(softmax(x, temperature=1e-6), [0.0, 1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(softmax(x, temperature=1e9), [1 / 3] * 3, atol=1e-8)
    with pytest.raises(ValueError, match="temperature"):
        softmax(x, temperature=0)


def test_causal_mask_values():
    assert causal_mask(3).tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]
    assert causal_mask(1, 3).tolist() == [[0, 0, 0]]


# ---- errors ---------------------------------------------------------------------------------------

def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match=r"Q is \(2, 3\), K is \(2, 4\)"):
        attend(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"K is \(2, 3\), V is \(3, 3\)"):
        attend(np.ones((2, 3)), np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"Q must be a 2-D matrix, got shape \(3,\)"):
        attend(np.ones(3), np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"mask must have shape .*\(2, 2\), got \(3, 3\)"):
        attend(np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 3)), mask=np.zeros((3, 3)))


def test_nan_inputs_are_rejected():
    bad = np.ones((2, 2))
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="K contains NaN"):
        attend(np.ones((2, 2)), bad, np.ones((2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        softmax(np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="X contains NaN"):
        multi_head(bad, np.eye(2), np.eye(2), np.eye(2), np.eye(2), heads=1)


def test_multi_head_errors():
    x, w = np.ones((3, 4)), np.eye(4)
    with pytest.raises(ValueError, match="heads must be a positive integer, got 0"):
        multi_head(x, w, w, w, w, heads=0)
    with pytest.raises(ValueError, match="W_Q has 4 columns, which 3 heads do not divide"):
        multi_head(x, w, w, w, w, heads=3)
    with pytest.raises(ValueError, match=r"W_K must have 4 rows to match X \(3, 4\), got shape \(3, 4\)"):
        multi_head(x, w, np.ones((3, 4)), w, w, heads=2)
    with pytest.raises(ValueError, match=r"W_O must have h·d_v = 4 rows, got shape \(2, 4\)"):
        multi_head(x, w, w, w, np.ones((2, 4)), heads=2)


def test_unmasked_attention_keeps_distinct_intermediates():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(3, 2))
    a = attend(q, q, q)
    assert a.mask.tolist() == [[0.0] * 3] * 3
    np.testing.assert_array_equal(a.masked, a.scaled)
    assert not np.shares_memory(a.masked, a.scaled) and not np.shares_memory(a.weights, a.masked)
    c = attend(q, q, q, causal=True, mask=padding_mask([True, True, False]))
    assert np.isneginf(c.masked[0, 1]) and np.isneginf(c.masked[2, 2]) and c.masked[2, 1] == c.scaled[2, 1]
