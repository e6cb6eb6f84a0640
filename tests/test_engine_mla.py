"""Multi-head latent attention (engine/mla.py) against a naive loop oracle written here, and its two
paths (K and V expanded per head; W_UK and W_UV absorbed, attention against the cached latent)
against each other."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.engine.mla import MLAWeights, absorbed, explicit, rms_norm, rope_breaks_absorption, seeded_weights

SIZES = dict(d=8, heads=3, r_q=6, r_kv=4, d_nope=4, d_r=2, d_v=3)


def rotate(vec, pos, base=10_000.0):
    """RoPE of one vector at one position, adjacent pairs, with math.cos/sin."""
    out = list(vec)
    d = len(vec)
    for i in range(d // 2):
        theta = pos * base ** (-2 * i / d)
        a, b = vec[2 * i], vec[2 * i + 1]
        c, s = math.cos(theta), math.sin(theta)
        out[2 * i], out[2 * i + 1] = a * c - b * s, a * s + b * c
    return out


def matvec(row, m):
    return [sum(row[r] * m[r][c] for r in range(len(row))) for c in range(len(m[0]))]


def norm(row):
    rms = math.sqrt(sum(x * x for x in row) / len(row) + 1e-6)
    return [x / rms for x in row]


def naive_mla(x, w: MLAWeights):
    """The equations, one token, one head and one number at a time."""
    s = w.sizes
    h, dn, dr, dv = s["h"], s["d_nope"], s["d_r"], s["d_v"]
    m = {k: getattr(w, k).tolist() for k in ("w_dq", "w_uq", "w_qr", "w_dkv", "w_uk", "w_uv", "w_kr", "w_o")}
    rows = x.tolist()
    cq = [norm(matvec(r, m["w_dq"])) for r in rows]
    ckv = [norm(matvec(r, m["w_dkv"])) for r in rows]
    kr = [rotate(matvec(r, m["w_kr"]), t) for t, r in enumerate(rows)]
    out = []
    for t in range(len(rows)):
        concat = []
        for i in range(h):
            qc = matvec(cq[t], m["w_uq"])[i * dn:(i + 1) * dn]
            qr = rotate(matvec(cq[t], m["w_qr"])[i * dr:(i + 1) * dr], t)
            sc = []
            for u in range(t + 1):
                kc = matvec(ckv[u], m["w_uk"])[i * dn:(i + 1) * dn]
                sc.append(sum(a * b for a, b in zip(qc + qr, kc + kr[u], strict=True)) / math.sqrt(dn + dr))
            top = max(sc)
            e = [math.exp(z - top) for z in sc]
            vals = [matvec(ckv[u], m["w_uv"])[i * dv:(i + 1) * dv] for u in range(t + 1)]
            concat += [sum(e[u] / sum(e) * vals[u][c] for u in range(t + 1)) for c in range(dv)]
        out.append(matvec(concat, m["w_o"]))
    return np.array(out)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 5))
def test_explicit_equals_the_loop_oracle(seed, n) -> None:
    w = seeded_weights(**SIZES, seed=seed)
    x = np.random.default_rng(seed + 1).normal(size=(n, SIZES["d"]))
    got = explicit(x, w)
    np.testing.assert_allclose(got.output, naive_mla(x, w), atol=1e-10)
    np.testing.assert_allclose(got.weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(got.weights[:, np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0)
    assert got.scale == pytest.approx(1 / math.sqrt(SIZES["d_nope"] + SIZES["d_r"]))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 7), heads=st.integers(1, 4),
       r_kv=st.integers(1, 6), d_r=st.sampled_from([2, 4]))
def test_absorbed_equals_explicit(seed, n, heads, r_kv, d_r) -> None:
    w = seeded_weights(d=6, heads=heads, r_q=5, r_kv=r_kv, d_nope=3, d_r=d_r, d_v=2, seed=seed)
    x = np.random.default_rng(seed).normal(size=(n, 6)) * 2
    a, b = explicit(x, w), absorbed(x, w)
    np.testing.assert_allclose(b.scores, a.scores, atol=1e-10)
    np.testing.assert_allclose(b.weights, a.weights, atol=1e-12)
    np.testing.assert_allclose(b.output, a.output, atol=1e-10)
    # the absorbed path reads only the cache rows [c_KV ; k_R]: r_kv + d_r numbers a token
    assert b.latents.cached.shape == (n, r_kv + d_r)
    np.testing.assert_allclose(b.latent_out @ np.ones(r_kv), (b.weights @ b.latents.c_kv) @ np.ones(r_kv))


def test_rms_norm_gives_unit_root_mean_square() -> None:
    x = np.random.default_rng(3).normal(size=(4, 9)) * 5
    y = rms_norm(x)
    np.testing.assert_allclose(np.sqrt(np.mean(y * y, axis=1)), 1.0, atol=1e-6)
    assert rms_norm([[3.0, 4.0]])[0].tolist() == pytest.approx([3 / math.sqrt(12.5 + 1e-6), 4 / math.sqrt(12.5 + 1e-6)])


def test_rope_on_the_expanded_keys_would_not_fold() -> None:
    w = seeded_weights(d=8, heads=2, r_q=6, r_kv=4, d_nope=4, d_r=2, d_v=3, seed=5)
    x = np.random.default_rng(5).normal(size=(5, 8))
    assert rope_breaks_absorption(x, w) > 1e-3
    # at one position (no rotation) there is nothing to break
    assert rope_breaks_absorption(x[:1], w) < 1e-12


def test_bad_weights_are_refused_by_name() -> None:
    w = seeded_weights(**SIZES)
    with pytest.raises(ValueError, match="W_UK must have 4 rows"):
        MLAWeights(**{**w.__dict__, "w_uk": w.w_uk[:3]}).checked()
    with pytest.raises(ValueError, match="W_O must have h·d_v = 9 rows"):
        MLAWeights(**{**w.__dict__, "w_o": w.w_o[:8]}).checked()
    with pytest.raises(ValueError, match="W_KR must have an even number"):
        MLAWeights(**{**w.__dict__, "w_kr": w.w_kr[:, :1], "w_qr": w.w_qr[:, :3]}).checked()
    with pytest.raises(ValueError, match="X must have d = 8 columns"):
        explicit(np.ones((2, 7)), w)
    with pytest.raises(ValueError, match="X contains NaN"):
        absorbed(np.full((2, 8), np.nan), w)
    with pytest.raises(ValueError, match="heads must be a positive integer"):
        MLAWeights(**{**w.__dict__, "heads": 0}).checked()
