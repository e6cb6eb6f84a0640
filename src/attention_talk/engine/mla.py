"""Multi-head latent attention (MLA), every intermediate kept, in its two equal forms.

DeepSeek-V2 report (arXiv:2405.04434), section 2.1, eqs 9-19; the RMSNorm on both latents as in
DeepSeek-V3 (arXiv:2412.19437). Each token's hidden state h_t is squeezed into two small latents:

    c_Q  = RMSNorm(h W_DQ)                       query latent   (n, r_q)
    c_KV = RMSNorm(h W_DKV)                      key/value latent (n, r_kv)   — the only thing cached
    k_R  = RoPE(h W_KR)                          one RoPE key shared by every head (n, d_r) — cached
    q_C,i = c_Q W_UQ,i     q_R,i = RoPE(c_Q W_QR,i)      per-head query: content and RoPE parts
    k_C,i = c_KV W_UK,i    v_i   = c_KV W_UV,i           per-head key and value, expanded from c_KV
    score_i(t, s) = ([q_C,i ; q_R,i](t) · [k_C,i ; k_R](s)) / √(d_nope + d_r)
    o_i = softmax(score_i + causal) v_i          u = [o_1 … o_h] W_O

``explicit`` expands K and V for every head, as written above. ``absorbed`` is what decoding does:
since q_C,i · k_C,i = (q_C,i W_UK,iᵀ) · c_KV, W_UK,i is folded into the query, and since
o_i W_O,i = (weights_i c_KV) (W_UV,i W_O,i), W_UV,i is folded into the output matrix, so scores and
the weighted sum are computed against the cached latent itself and K, V are never rebuilt. The RoPE
part cannot be folded (the rotation depends on the key's position and sits between the two
matrices), which is why it is a separate, decoupled 64-wide key in the real model.

A learned RMSNorm gain is a diagonal matrix in front of the next projection; it is taken as folded
into W_UQ, W_QR, W_UK and W_UV, so the norm here has none.

Letters used in the shape comments:
    n   tokens         d    model width        h     heads
    r_q query latent   r_kv key/value latent   d_nope per-head content width
    d_r RoPE width     d_v  per-head value width

NumPy only, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attention_talk.engine.attention import causal_mask, softmax
from attention_talk.engine.checks import check_matrix, check_positive_int, check_split
from attention_talk.engine.rope import rope

RMS_EPS = 1e-6


def rms_norm(x: np.ndarray, eps: float = RMS_EPS) -> np.ndarray:
    """Each row divided by its root mean square: x / √(mean(x²) + eps)."""
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)


@dataclass(frozen=True)
class MLAWeights:
    """The projections of one MLA layer (DeepSeek-V2 eqs 9-19); the RoPE query and key parts apart."""

    heads: int
    w_dq: np.ndarray  # (d, r_q)            down to the query latent
    w_uq: np.ndarray  # (r_q, h·d_nope)     query latent up, content part
    w_qr: np.ndarray  # (r_q, h·d_r)        query latent up, RoPE part
    w_dkv: np.ndarray  # (d, r_kv)          down to the key/value latent (cached)
    w_uk: np.ndarray  # (r_kv, h·d_nope)    latent up to the keys
    w_uv: np.ndarray  # (r_kv, h·d_v)       latent up to the values
    w_kr: np.ndarray  # (d, d_r)            the shared RoPE key
    w_o: np.ndarray  # (h·d_v, d)           output

    @property
    def sizes(self) -> dict[str, int]:
        """d, h, r_q, r_kv, d_nope, d_r, d_v read off the matrices."""
        h = self.heads
        return {"d": self.w_dq.shape[0], "h": h, "r_q": self.w_dq.shape[1], "r_kv": self.w_dkv.shape[1],
                "d_nope": self.w_uq.shape[1] // h, "d_r": self.w_kr.shape[1], "d_v": self.w_uv.shape[1] // h}

    @property
    def scale(self) -> float:
        s = self.sizes
        return float(1.0 / np.sqrt(s["d_nope"] + s["d_r"]))

    def checked(self) -> MLAWeights:
        """The weights with every matrix checked and every shape matching, or ValueError naming it."""
        m = {name: check_matrix(name.upper(), getattr(self, name)) for name in
             ("w_dq", "w_uq", "w_qr", "w_dkv", "w_uk", "w_uv", "w_kr", "w_o")}
        h = check_positive_int("heads", self.heads)
        d, r_q, r_kv = m["w_dq"].shape[0], m["w_dq"].shape[1], m["w_dkv"].shape[1]
        rows = {"w_uq": r_q, "w_qr": r_q, "w_dkv": d, "w_uk": r_kv, "w_uv": r_kv, "w_kr": d}
        for name, want in rows.items():
            if m[name].shape[0] != want:
                raise ValueError(f"{name.upper()} must have {want} rows, got shape {m[name].shape}")
        d_nope = check_split("W_UQ", m["w_uq"].shape[1], h)
        if m["w_uk"].shape[1] != h * d_nope:
            raise ValueError(f"W_UK must have h·d_nope = {h * d_nope} columns, got shape {m['w_uk'].shape}")
        d_r = m["w_kr"].shape[1]
        if d_r < 2 or d_r % 2:
            raise ValueError(f"W_KR must have an even number (>= 2) of columns for RoPE, got {d_r}")
        if m["w_qr"].shape[1] != h * d_r:
            raise ValueError(f"W_QR must have h·d_r = {h * d_r} columns, got shape {m['w_qr'].shape}")
        d_v = check_split("W_UV", m["w_uv"].shape[1], h)
        if m["w_o"].shape[0] != h * d_v:
            raise ValueError(f"W_O must have h·d_v = {h * d_v} rows, got shape {m['w_o'].shape}")
        return MLAWeights(heads=h, **m)


def seeded_weights(*, d: int, heads: int, r_q: int, r_kv: int, d_nope: int, d_r: int, d_v: int,
                   seed: int = 0) -> MLAWeights:
    """Small random MLA weights (normal, scaled by 1/√rows) for pictures and tests."""
    rng = np.random.default_rng(seed)

    def w(rows: int, cols: int) -> np.ndarray:
        return rng.normal(size=(rows, cols)) / np.sqrt(rows)

    return MLAWeights(heads=heads, w_dq=w(d, r_q), w_uq=w(r_q, heads * d_nope), w_qr=w(r_q, heads * d_r),
                      w_dkv=w(d, r_kv), w_uk=w(r_kv, heads * d_nope), w_uv=w(r_kv, heads * d_v),
                      w_kr=w(d, d_r), w_o=w(heads * d_v, d))


def _per_head(x: np.ndarray, heads: int) -> np.ndarray:
    """(n, h·w) → (h, n, w)."""
    n, width = x.shape
    return x.reshape(n, heads, width // heads).transpose(1, 0, 2)


@dataclass(frozen=True)
class Latents:
    """What every token is squeezed into, and the per-head RoPE queries."""

    c_q: np.ndarray  # (n, r_q)
    c_kv: np.ndarray  # (n, r_kv)   cached
    k_r: np.ndarray  # (n, d_r)     cached, shared by the heads
    q_c: np.ndarray  # (h, n, d_nope)
    q_r: np.ndarray  # (h, n, d_r)

    @property
    def cached(self) -> np.ndarray:
        """The cache row of every token: [c_KV ; k_R], (n, r_kv + d_r)."""
        return np.concatenate([self.c_kv, self.k_r], axis=1)


def latents(x: np.ndarray, w: MLAWeights, positions: np.ndarray | None = None) -> Latents:
    """Down-projections, norms and RoPE: everything both paths share."""
    x = check_matrix("X", x)
    w = w.checked()
    if x.shape[1] != w.w_dq.shape[0]:
        raise ValueError(f"X must have d = {w.w_dq.shape[0]} columns to match W_DQ, got shape {x.shape}")
    c_q = rms_norm(x @ w.w_dq)  # (n, r_q)
    c_kv = rms_norm(x @ w.w_dkv)  # (n, r_kv)
    k_r = rope(x @ w.w_kr, positions)  # (n, d_r)
    q_c = _per_head(c_q @ w.w_uq, w.heads)  # (h, n, d_nope)
    q_r = rope(_per_head(c_q @ w.w_qr, w.heads), positions)  # (h, n, d_r)
    return Latents(c_q=c_q, c_kv=c_kv, k_r=k_r, q_c=q_c, q_r=q_r)


@dataclass(frozen=True)
class MLAExplicit:
    """MLA with K and V expanded for every head."""

    latents: Latents
    k_c: np.ndarray  # (h, n, d_nope)
    v: np.ndarray  # (h, n, d_v)
    q: np.ndarray  # (h, n, d_nope + d_r)   [q_C ; q_R]
    k: np.ndarray  # (h, n, d_nope + d_r)   [k_C ; k_R]
    scale: float  # 1/√(d_nope + d_r)
    scores: np.ndarray  # (h, n, n)   q kᵀ · scale + causal mask
    weights: np.ndarray  # (h, n, n)
    heads_out: np.ndarray  # (h, n, d_v)
    concat: np.ndarray  # (n, h·d_v)
    output: np.ndarray  # (n, d)


def explicit(x: np.ndarray, w: MLAWeights, positions: np.ndarray | None = None) -> MLAExplicit:
    """MLA as the equations read: expand every head's K and V from the latent, then attend (causal)."""
    w = w.checked()
    lat = latents(x, w, positions)
    h, n = w.heads, lat.c_kv.shape[0]
    k_c = _per_head(lat.c_kv @ w.w_uk, h)  # (h, n, d_nope)
    v = _per_head(lat.c_kv @ w.w_uv, h)  # (h, n, d_v)
    q = np.concatenate([lat.q_c, lat.q_r], axis=2)  # (h, n, d_nope + d_r)
    k = np.concatenate([k_c, np.broadcast_to(lat.k_r, (h, *lat.k_r.shape))], axis=2)  # (h, n, d_nope + d_r)
    s = q @ k.transpose(0, 2, 1) * w.scale + causal_mask(n)  # (h, n, n)
    weights = softmax(s, axis=-1)
    heads_out = weights @ v  # (h, n, d_v)
    concat = heads_out.transpose(1, 0, 2).reshape(n, -1)  # (n, h·d_v)
    return MLAExplicit(latents=lat, k_c=k_c, v=v, q=q, k=k, scale=w.scale, scores=s, weights=weights,
                       heads_out=heads_out, concat=concat, output=concat @ w.w_o)


@dataclass(frozen=True)
class MLAAbsorbed:
    """MLA computed against the cached latent: W_UK folded into the queries, W_UV into W_O."""

    latents: Latents
    q_latent: np.ndarray  # (h, n, r_kv)   q_C,i W_UK,iᵀ
    w_uv_o: np.ndarray  # (h, r_kv, d)     W_UV,i W_O,i
    scale: float
    scores: np.ndarray  # (h, n, n)
    weights: np.ndarray  # (h, n, n)
    latent_out: np.ndarray  # (h, n, r_kv)   weights_i c_KV
    output: np.ndarray  # (n, d)


def absorbed_matrices(w: MLAWeights) -> tuple[np.ndarray, np.ndarray]:
    """W_UK,i per head as (h, d_nope, r_kv) (its transpose multiplies the query) and W_UV,i W_O,i
    as (h, r_kv, d)."""
    w = w.checked()
    s = w.sizes
    w_uk = w.w_uk.reshape(s["r_kv"], w.heads, s["d_nope"]).transpose(1, 2, 0)  # (h, d_nope, r_kv)
    w_uv = w.w_uv.reshape(s["r_kv"], w.heads, s["d_v"]).transpose(1, 0, 2)  # (h, r_kv, d_v)
    w_o = w.w_o.reshape(w.heads, s["d_v"], s["d"])  # (h, d_v, d)
    return w_uk, w_uv @ w_o


def absorbed(x: np.ndarray, w: MLAWeights, positions: np.ndarray | None = None) -> MLAAbsorbed:
    """MLA as decoding runs it: scores and the weighted sum against [c_KV ; k_R], never K or V."""
    w = w.checked()
    lat = latents(x, w, positions)
    n = lat.c_kv.shape[0]
    w_uk, w_uv_o = absorbed_matrices(w)
    q_latent = lat.q_c @ w_uk  # (h, n, d_nope)(h, d_nope, r_kv) = (h, n, r_kv)
    s = (q_latent @ lat.c_kv.T + lat.q_r @ lat.k_r.T) * w.scale + causal_mask(n)  # (h, n, n)
    weights = softmax(s, axis=-1)
    latent_out = weights @ lat.c_kv  # (h, n, r_kv)
    output = np.einsum("hnr,hrd->nd", latent_out, w_uv_o)  # Σ_i (weights_i c_KV)(W_UV,i W_O,i)
    return MLAAbsorbed(latents=lat, q_latent=q_latent, w_uv_o=w_uv_o, scale=w.scale, scores=s,
                       weights=weights, latent_out=latent_out, output=output)


def rope_breaks_absorption(x: np.ndarray, w: MLAWeights, positions: np.ndarray | None = None) -> float:
    """How far the content scores move if RoPE were applied to the expanded keys k_C and queries
    q_C instead of a separate part: the largest |(R_t q)·(R_s k) − (q W_UKᵀ)·c_KV| over heads and
    pairs. Non-zero: a rotation that depends on s sits between W_UK and c_KV, so W_UK cannot be
    folded into a query once for every key."""
    w = w.checked()
    lat = latents(x, w, positions)
    w_uk, _ = absorbed_matrices(w)
    k_c = _per_head(lat.c_kv @ w.w_uk, w.heads)  # (h, n, d_nope)
    if k_c.shape[2] % 2:
        raise ValueError("the content width d_nope must be even to rotate it")
    rotated = rope(lat.q_c, positions) @ rope(k_c, positions).transpose(0, 2, 1)  # (h, n, n)
    folded = (lat.q_c @ w_uk) @ lat.c_kv.T  # (h, n, n)
    keep = np.tril(np.ones(rotated.shape[1:], dtype=bool))
    return float(np.max(np.abs(rotated - folded)[:, keep]))
