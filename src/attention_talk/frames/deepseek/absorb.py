"""Slide "The absorption trick, and why RoPE is kept apart" (``ds.absorb``): W_UK folded into the
query (the scores computed against the cached latent equal the expanded ones), W_UV folded into
W_O (the same output), RoPE breaking that fold if it turned the expanded keys, the decoupled RoPE
key shared by every head, and the real model's five matrices (engine.mla.absorbed, the cost model)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import costs
from attention_talk.engine.mla import absorbed_matrices, rope_breaks_absorption
from attention_talk.engine.rope import rope
from attention_talk.formatting import count, number, scientific
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Symbol
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.inputs import HEAD, Toy, toy
from attention_talk.frames.deepseek.shared import bars, counter, max_gap, nums, pos
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_dot, derive_output, derive_projection, derive_scores
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note

LAYOUT = {
    "q": box(60, 140, 400, 430), "wuk": box(530, 140, 340, 430), "ql": box(940, 140, 600, 430),
    "left": box(60, 140, 700, 430), "right": box(840, 140, 700, 430), "note": box(60, 610, 1480, 140),
    "lo": box(60, 140, 520, 430), "wo": box(660, 140, 880, 430),
    "qr": box(60, 140, 300, 430), "kr": box(440, 140, 300, 430), "sr": box(820, 140, 720, 430),
    "bars": box(60, 130, 1480, 500), "side": box(60, 640, 1480, 110),
}


class AbsorbParams(Params):
    stage: Literal["fold-q", "equal", "fold-o", "rope", "decoupled", "real"]


def _head_wuk(t: Toy) -> np.ndarray:
    return absorbed_matrices(t.w)[0][HEAD]  # (d_nope, r_kv)


def _fold_q(t: Toy) -> FrameBody:
    lat, w_uk = t.absb.latents, _head_wuk(t)
    q = tensor("q_c", f"q_C, head {HEAD + 1}", "query", lat.q_c[HEAD], LAYOUT["q"], rows=t.tokens,
               cols=nums("q", w_uk.shape[0]))
    wt = tensor("w_uk_t", "W_UKᵀ", "weight", w_uk, LAYOUT["wuk"], cols=nums("c", w_uk.shape[1]))
    ql = derive_projection(tensor("q_lat", "latent query q_C·W_UKᵀ", "query", t.absb.q_latent[HEAD],
                                  LAYOUT["ql"], rows=t.tokens, cols=nums("c", w_uk.shape[1])),
                           lat.q_c[HEAD], w_uk, x_name="q_C", w_name="W_UKᵀ", row_names=t.tokens)
    return FrameBody(tensors=[q, wt, ql], symbols=[Symbol(id="times", text="×", x=495, y=355),
                                                 Symbol(id="to", text="→", x=905, y=355)],
                     notes=[note("fold-q", LAYOUT["note"], r_kv=w_uk.shape[1])])


def _equal(t: Toy) -> FrameBody:
    n, lat = len(t.tokens), t.absb.latents
    mask = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    q = np.concatenate([t.absb.q_latent[HEAD], lat.q_r[HEAD]], axis=1)
    left = derive_scores(tensor("s_lat", "from the cache: c_KV and k_R", "scores",
                                t.absb.scores[HEAD], LAYOUT["left"], rows=t.tokens, cols=pos(t)),
                         q, lat.cached, row_names=t.tokens, col_names=t.tokens, scale=t.absb.scale, mask=mask)
    right = derive_scores(tensor("s", "from expanded keys: k_C and k_R", "scores",
                                 t.exp.scores[HEAD], LAYOUT["right"], rows=t.tokens, cols=pos(t)),
                          t.exp.q[HEAD], t.exp.k[HEAD], row_names=t.tokens, col_names=t.tokens,
                          scale=t.exp.scale, mask=mask)
    return FrameBody(tensors=[left, right], notes=[note("equal", LAYOUT["note"],
                                                       gap=scientific(max_gap(t.absb.scores, t.exp.scores)))])


def _fold_o(t: Toy) -> FrameBody:
    lo = derive_output(tensor("lat_out", "weights·c_KV", "output", t.absb.latent_out[HEAD],
                              LAYOUT["lo"], rows=t.tokens, cols=nums("c", t.absb.latent_out.shape[2])),
                       t.absb.weights[HEAD], t.absb.latents.c_kv, row_names=t.tokens, key_names=t.tokens,
                       v_name="c_KV")
    s = t.w.sizes
    w_uv = t.w.w_uv[:, HEAD * s["d_v"]:(HEAD + 1) * s["d_v"]]
    w_o = t.w.w_o[HEAD * s["d_v"]:(HEAD + 1) * s["d_v"]]
    wo = derive_dot(tensor("w_uv_o", "W_UV·W_O, one matrix", "weight",
                           t.absb.w_uv_o[HEAD], LAYOUT["wo"], rows=nums("c", s["r_kv"])),
                    w_uv, w_o.T, kind="projection", formula="W_UV·W_O",
                    title=lambda r, c: f"W_UV row {r + 1} · W_O column {c + 1}",
                    sum_text=lambda r, c: f"{s['d_v']} products over the head's value width")
    gap = max_gap(t.absb.output, t.exp.output)
    return FrameBody(tensors=[lo, wo], notes=[note("fold-o", LAYOUT["note"], gap=scientific(gap))])


def _rope(t: Toy) -> FrameBody:
    lat, n = t.absb.latents, len(t.tokens)
    k_c = t.exp.k_c[HEAD]
    turned = rope(lat.q_c[HEAD]) @ rope(k_c).T
    folded = t.absb.q_latent[HEAD] @ lat.c_kv.T
    mask = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    left = derive_scores(tensor("s_fold", "folded: (q_C·W_UKᵀ)·c_KVᵀ", "scores", folded + mask, LAYOUT["left"],
                                rows=t.tokens, cols=pos(t)), t.absb.q_latent[HEAD], lat.c_kv,
                         row_names=t.tokens, col_names=t.tokens, mask=mask)
    right = derive_scores(tensor("s_turn", "with RoPE: R_t q_C · R_s k_C", "scores", turned + mask,
                                 LAYOUT["right"], rows=t.tokens, cols=pos(t)), rope(lat.q_c[HEAD]), rope(k_c),
                          row_names=t.tokens, col_names=t.tokens, mask=mask)
    return FrameBody(tensors=[left, right], notes=[note("rope", LAYOUT["note"],
                                                       gap=number(rope_breaks_absorption(t.x, t.w), 2))])


def _decoupled(t: Toy, ctx: BuildContext) -> FrameBody:
    lat, n, s = t.absb.latents, len(t.tokens), t.w.sizes
    mask = np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)
    qr = tensor("q_r", "q_R, one head", "query", lat.q_r[HEAD], LAYOUT["qr"], rows=t.tokens,
                cols=nums("r", s["d_r"]))
    kr = tensor("k_r", "k_R, shared", "key", lat.k_r, LAYOUT["kr"], rows=t.tokens, cols=nums("r", s["d_r"]))
    sr = derive_scores(tensor("s_r", "RoPE scores q_R·k_Rᵀ", "scores",
                              lat.q_r[HEAD] @ lat.k_r.T + mask, LAYOUT["sr"], rows=t.tokens, cols=pos(t)),
                       lat.q_r[HEAD], lat.k_r, row_names=t.tokens, col_names=t.tokens, mask=mask)
    m = costs(ctx.deck.preset).preset.mla
    return FrameBody(tensors=[qr, kr, sr], notes=[note("decoupled", LAYOUT["note"], real_r=m.qk_rope_head_dim,
                                                       nope=m.qk_nope_head_dim,
                                                       width=m.qk_nope_head_dim + m.qk_rope_head_dim)])


def _real(ctx: BuildContext) -> FrameBody:
    c = costs(ctx.deck.preset)
    shapes = c.mla_matrices()
    names = {"wq_a": "W_DQ", "wq_b": "W_UQ + W_QR", "wkv_a": "W_DKV + W_KR", "wkv_b": "W_UK + W_UV",
             "wo": "W_O"}
    total, plain = c.mla_weights(), c.weights_attention()
    labels = [names[k] for k in shapes]
    values = [r * col for r, col in shapes.values()]
    texts = [f"{count(r)} × {count(col)} = {count(r * col)}" for r, col in shapes.values()]
    w = bars("real", LAYOUT["bars"], f"{c.preset.name}: MLA's matrices, one layer (weights)",
             [*labels, "all five", "plain W_Q, W_K, W_V, W_O"], [*values, total.value, plain.value],
             kind="weight", value_labels=[*texts, count(total.value), count(plain.value)],
             highlight=len(values))
    return FrameBody(widgets=[w], counters=[counter("mla-weights", total)],
                     notes=[note("real", LAYOUT["side"], total=count(total.value), plain=count(plain.value))])


@CHAPTER.builder("ds.absorb", AbsorbParams, notes=("fold-q", "equal", "fold-o", "rope", "decoupled", "real"))
def absorb(ctx: BuildContext, p: AbsorbParams) -> FrameBody:
    """W_UK folded into the query, W_UV into W_O; why RoPE would break it; the decoupled key; the real sizes."""
    t = toy(ctx)
    if p.stage == "decoupled":
        return _decoupled(t, ctx)
    if p.stage == "real":
        return _real(ctx)
    return {"fold-q": _fold_q, "equal": _equal, "fold-o": _fold_o, "rope": _rope}[p.stage](t)
