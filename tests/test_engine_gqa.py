"""Grouped-query attention (engine/gqa.py, multi_head(kv_heads=…), decode_step_grouped) against the
one-head engine (attend, itself checked against a loop oracle in test_engine_attention.py) and a
naive loop written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine import (
    KVCache,
    attend,
    decode_step_grouped,
    grouped_attend,
    kv_head_of,
    multi_head,
)


def naive_head(q, k, v):
    """Causal attention for one head, loops and math.exp."""
    n, d = len(q), len(q[0])
    out = []
    for i in range(n):
        s = [sum(q[i][c] * k[j][c] for c in range(d)) / math.sqrt(d) for j in range(i + 1)]
        top = max(s)
        e = [math.exp(x - top) for x in s]
        out.append([sum(e[j] / sum(e) * v[j][c] for j in range(i + 1)) for c in range(len(v[0]))])
    return np.array(out)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), groups=st.sampled_from([(1, 1), (4, 1), (4, 2), (6, 3), (9, 3)]),
       n=st.integers(1, 6), d=st.integers(1, 5))
def test_every_head_equals_attend_with_its_group(seed, groups, n, d) -> None:
    h, g = groups
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(h, n, d)), rng.normal(size=(g, n, d)), rng.normal(size=(g, n, d + 1))
    got = grouped_attend(q, k, v, causal=True)
    for i in range(h):
        one = attend(q[i], k[i // (h // g)], v[i // (h // g)], causal=True)
        np.testing.assert_allclose(got.weights[i], one.weights, atol=1e-12)
        np.testing.assert_allclose(got.output[i], one.output, atol=1e-12)
        np.testing.assert_allclose(got.head(i).output, naive_head(q[i].tolist(), k[got.kv_head_of(i)].tolist(),
                                                                  v[got.kv_head_of(i)].tolist()), atol=1e-12)
    np.testing.assert_allclose(got.weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(got.weights[:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0)
    assert got.concat.shape == (n, h * (d + 1))


def test_kv_head_of_follows_llama_grouping() -> None:
    assert [kv_head_of(i, 9, 3) for i in range(9)] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match="must divide"):
        kv_head_of(0, 9, 2)
    with pytest.raises(ValueError, match="between 0 and 8"):
        kv_head_of(9, 9, 3)


def test_multi_head_with_kv_heads_shares_keys_and_values() -> None:
    rng = np.random.default_rng(5)
    n, d, h, g, dk = 4, 12, 6, 2, 3
    x = rng.normal(size=(n, d))
    w_q, w_k, w_v = rng.normal(size=(d, h * dk)), rng.normal(size=(d, g * dk)), rng.normal(size=(d, g * dk))
    w_o = rng.normal(size=(h * dk, d))
    mh = multi_head(x, w_q, w_k, w_v, w_o, heads=h, kv_heads=g, causal=True)
    q = (x @ w_q).reshape(n, h, dk).transpose(1, 0, 2)
    k = (x @ w_k).reshape(n, g, dk).transpose(1, 0, 2)
    v = (x @ w_v).reshape(n, g, dk).transpose(1, 0, 2)
    batched = grouped_attend(q, k, v, causal=True)
    np.testing.assert_allclose(mh.output, batched.concat @ w_o, atol=1e-10)
    plain = multi_head(x, w_q, np.repeat(w_k.reshape(d, g, dk), h // g, axis=1).reshape(d, h * dk),
                       np.repeat(w_v.reshape(d, g, dk), h // g, axis=1).reshape(d, h * dk), w_o, heads=h, causal=True)
    np.testing.assert_allclose(mh.output, plain.output, atol=1e-10)  # GQA = MHA with K, V blocks repeated
    with pytest.raises(ValueError, match="must divide"):
        multi_head(x, w_q, w_k, w_v, w_o, heads=h, kv_heads=4)


def test_decoding_with_one_cache_per_group_gives_the_full_pass() -> None:
    rng = np.random.default_rng(6)
    h, g, n, d = 6, 2, 5, 4
    q, k, v = rng.normal(size=(h, n, d)), rng.normal(size=(g, n, d)), rng.normal(size=(g, n, d))
    full = grouped_attend(q, k, v, causal=True)
    caches = [KVCache(d, d) for _ in range(g)]
    for t in range(n):
        step = decode_step_grouped(q[:, t], k[:, t], v[:, t], caches)
        np.testing.assert_allclose(step.output[:, 0], full.output[:, t], atol=1e-12)
        np.testing.assert_allclose(step.weights[:, 0], full.weights[:, t, : t + 1], atol=1e-12)
    assert [len(c) for c in caches] == [n, n]
    with pytest.raises(ValueError, match="one cache per key/value head"):
        decode_step_grouped(q[:, 0], k[:, 0], v[:, 0], caches[:1])


@pytest.mark.parametrize(("args", "message"), [
    ((np.ones((2, 3)), np.ones((1, 3, 2)), np.ones((1, 3, 2))), r"Q must have shape \(heads, rows, width\)"),
    ((np.ones((4, 3, 2)), np.ones((3, 3, 2)), np.ones((3, 3, 2))), "must divide"),
    ((np.ones((2, 3, 2)), np.ones((1, 3, 3)), np.ones((1, 3, 2))), "same width d_k"),
    ((np.ones((2, 3, 2)), np.ones((1, 3, 2)), np.ones((1, 2, 2))), "one head and row per K"),
    ((np.full((2, 3, 2), np.nan), np.ones((1, 3, 2)), np.ones((1, 3, 2))), "NaN"),
])
def test_bad_shapes_are_named(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        grouped_attend(*args)
