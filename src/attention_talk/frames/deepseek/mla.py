"""Slide "MLA: compress, cache, expand" (``ds.mla``): each token squeezed into the key/value latent
c_KV = RMSNorm(x W_DKV), only c_KV and the shared RoPE key k_R cached, a head's keys and values
expanded from the latent, and that head's attention as the equations read (engine.mla.explicit),
at the chapter's small seeded widths (frames/deepseek/inputs.py)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import costs
from attention_talk.formatting import number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Symbol
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.inputs import HEAD, Toy, toy
from attention_talk.frames.deepseek.shared import bars, nums, pos
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_projection, derive_scores, derive_weights
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note

LAYOUT = {
    "x": box(60, 140, 480, 430), "w": box(610, 140, 300, 430), "c": box(980, 140, 560, 430),
    "note": box(60, 610, 1480, 140),
    "ckv": box(60, 140, 440, 430), "kr": box(580, 140, 300, 430), "bars": box(960, 150, 580, 400),
    "k": box(580, 140, 440, 430), "v": box(1100, 140, 440, 430),
    "s": box(60, 140, 700, 430), "a": box(840, 140, 700, 430),
}


class MLAParams(Params):
    stage: Literal["compress", "cache", "expand", "query", "attend"]


def _latent(t: Toy, b, label: str = "c_KV = RMSNorm(X·W_DKV)") -> object:
    """c_KV with each cell derived: x·W_DKV, then divided by its row's root mean square."""
    pre = t.x @ t.w.w_dkv  # (n, r_kv)
    rms = np.sqrt(np.mean(pre * pre, axis=1) + 1e-6)
    c = t.absb.latents.c_kv
    out = tensor("c_kv", label, "key", c, b, rows=t.tokens, cols=nums("c", c.shape[1]))
    return derive_copy(out, lambda r, col: (f"(x·W_DKV) = {number(pre[r, col], 3)}, divided by its row's "
                                            f"root mean square {number(rms[r], 3)}", float(c[r, col])),
                       formula="RMSNorm(X·W_DKV)", title=lambda r, col: f"c_KV({t.tokens[r]}), latent {col + 1}")


def _compress(t: Toy) -> FrameBody:
    x = tensor("x", "X: one row per token", "input", t.x, LAYOUT["x"], rows=t.tokens)
    w = tensor("w_dkv", "W_DKV", "weight", t.w.w_dkv, LAYOUT["w"], cols=nums("c", t.w.w_dkv.shape[1]))
    s = t.w.sizes
    return FrameBody(tensors=[x, w, _latent(t, LAYOUT["c"])],
                     symbols=[Symbol(id="times", text="×", x=575, y=355), Symbol(id="to", text="→", x=945, y=355)],
                     notes=[note("compress", LAYOUT["note"], d=s["d"], r_kv=s["r_kv"])])


def _cache(t: Toy, ctx: BuildContext) -> FrameBody:
    lat, s, c = t.absb.latents, t.w.sizes, costs(ctx.deck.preset)
    kr = derive_projection(tensor("k_r", "k_R = x·W_KR", "key", t.x @ t.w.w_kr, LAYOUT["kr"],
                                  rows=t.tokens, cols=nums("r", s["d_r"])), t.x, t.w.w_kr, x_name="x",
                           w_name="W_KR", row_names=t.tokens)
    full = s["h"] * (s["d_nope"] + s["d_r"] + s["d_v"])
    cached = s["r_kv"] + s["d_r"]
    w = bars("cached", LAYOUT["bars"], "cached per token (our widths)",
             ["all K, V", "c_KV + k_R"], [full, cached], kind="key",
             value_labels=[str(full), str(cached)], highlight=1)
    ckv = _latent(t, LAYOUT["ckv"], "c_KV: cached")
    ckv.highlight = Highlight(cols=list(range(lat.c_kv.shape[1])))
    m = c.preset.mla
    return FrameBody(tensors=[ckv, kr], widgets=[w], notes=[note(
        "cache", LAYOUT["note"], real_kv=m.kv_lora_rank, real_r=m.qk_rope_head_dim,
        real_cached=c.kv_numbers_per_token_layer("mla").value, real_full=c.kv_numbers_per_token_layer("mha").value)])


def _expand(t: Toy) -> FrameBody:
    lat, s = t.absb.latents, t.w.sizes
    i = HEAD
    w_uk = t.w.w_uk[:, i * s["d_nope"]:(i + 1) * s["d_nope"]]
    w_uv = t.w.w_uv[:, i * s["d_v"]:(i + 1) * s["d_v"]]
    k = derive_projection(tensor("k_c", f"K_C = c_KV·W_UK ({i + 1})", "key", t.exp.k_c[i], LAYOUT["k"],
                                 rows=t.tokens, cols=nums("k", s["d_nope"])), lat.c_kv, w_uk, x_name="c_KV",
                          w_name="W_UK", row_names=t.tokens)
    v = derive_projection(tensor("v", f"V = c_KV·W_UV ({i + 1})", "value", t.exp.v[i], LAYOUT["v"],
                                 rows=t.tokens, cols=nums("v", s["d_v"])), lat.c_kv, w_uv, x_name="c_KV",
                          w_name="W_UV", row_names=t.tokens)
    return FrameBody(tensors=[_latent(t, LAYOUT["ckv"], "c_KV"), k, v], notes=[note("expand", LAYOUT["note"])])


def _query(t: Toy) -> FrameBody:
    lat, s, i = t.absb.latents, t.w.sizes, HEAD
    pre = t.x @ t.w.w_dq
    rms = np.sqrt(np.mean(pre * pre, axis=1) + 1e-6)
    cq = derive_copy(tensor("c_q", "c_Q = RMSNorm(X·W_DQ)", "query", lat.c_q, LAYOUT["ckv"], rows=t.tokens,
                            cols=nums("c", s["r_q"])),
                     lambda r, col: (f"(x·W_DQ) = {number(pre[r, col], 3)}, divided by its row's root mean square "
                                     f"{number(rms[r], 3)}", float(lat.c_q[r, col])),
                     formula="RMSNorm(X·W_DQ)", title=lambda r, col: f"c_Q({t.tokens[r]}), latent {col + 1}")
    w_uq = t.w.w_uq[:, i * s["d_nope"]:(i + 1) * s["d_nope"]]
    w_qr = t.w.w_qr[:, i * s["d_r"]:(i + 1) * s["d_r"]]
    qc = derive_projection(tensor("q_c", f"q_C = c_Q·W_UQ, head {i + 1}", "query", lat.q_c[i], LAYOUT["k"],
                                  rows=t.tokens, cols=nums("q", s["d_nope"])), lat.c_q, w_uq, x_name="c_Q",
                           w_name="W_UQ", row_names=t.tokens)
    qr = derive_projection(tensor("q_r0", f"c_Q·W_QR, head {i + 1}", "query", lat.c_q @ w_qr,
                                  LAYOUT["v"], rows=t.tokens, cols=nums("r", s["d_r"])), lat.c_q, w_qr,
                           x_name="c_Q", w_name="W_QR", row_names=t.tokens)
    return FrameBody(tensors=[cq, qc, qr], notes=[note("query", LAYOUT["note"], r_q=s["r_q"], d=s["d"])])


def _attend(t: Toy) -> FrameBody:
    i, n = HEAD, len(t.tokens)
    mask = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    s = derive_scores(tensor("s", f"scores, head {i + 1}", "scores",
                             t.exp.scores[i], LAYOUT["s"], rows=t.tokens, cols=pos(t)),
                      t.exp.q[i], t.exp.k[i], row_names=t.tokens, col_names=t.tokens, scale=t.exp.scale, mask=mask)
    a = derive_weights(tensor("a", f"weights, head {i + 1}", "weights", t.exp.weights[i], LAYOUT["a"],
                              rows=t.tokens, cols=pos(t), heat=True), t.exp.scores[i], row_names=t.tokens,
                       col_names=t.tokens)
    return FrameBody(tensors=[s, a], notes=[note("attend", LAYOUT["note"], width=t.exp.q.shape[2])])


@CHAPTER.builder("ds.mla", MLAParams, notes=("compress", "cache", "expand", "query", "attend"))
def mla(ctx: BuildContext, p: MLAParams) -> FrameBody:
    """Each token compressed into c_KV; only c_KV and k_R cached; a head's K and V expanded; its attention."""
    t = toy(ctx)
    if p.stage == "cache":
        return _cache(t, ctx)
    return {"compress": _compress, "expand": _expand, "query": _query, "attend": _attend}[p.stage](t)
