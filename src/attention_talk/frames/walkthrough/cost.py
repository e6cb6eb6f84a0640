"""Section 8, the cost (``walk.cost``): the n² attention map as a slider beside the river sentence's
own map (every pair one score), the KV cache growing token by token, MLA's smaller cache, and
modern variants beside a toy sparse map (each query keeps its top keys, the rest blocked)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import Costs, costs, decode, softmax
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_projection, derive_scores, derive_weights
from attention_talk.frames.kit.layout import LEFT, box, columns
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import W_K, W_V
from attention_talk.frames.walkthrough.shared import bars, cards, causal_river, counter, sentences, to_right

_CACHES = columns(box(LEFT, 130, 1080, 400), [1, 1])
LAYOUT = {
    "slider": box(LEFT, 130, 860, 560), "pairs": to_right(960, 150, 560), "sparse": to_right(730, 130, 620),
    "K": _CACHES[0], "V": _CACHES[1], "grow": to_right(1180, 140, 560),
    "kvbars": box(LEFT, 130, 860, 280), "ctxbars": box(LEFT, 450, 860, 280), "mla": to_right(980, 300, 300),
    "modern": box(LEFT, 120, 640, 640),
}
PAIR_NS = (1_024, 4_096, 16_384, 65_536, 163_840)
HYBRID_EXAMPLE = "Kimi K3"  # a model described as mixing attention patterns across layers
SPARSE_KEEP = 2  # keys each query keeps in the sparse picture (a toy stand-in for DSA's top-k of 2,048)


class CostParams(Params):
    stage: Literal["pairs", "kv", "mla", "modern"]


def _pair_option(c: Costs, n: int) -> dict:
    """The attention map at context length ``n``: cells, bytes for one head and for all heads."""
    cells, mem = c.attention_map_cells(n), c.attention_map_bytes(n)
    return {"n": n, "cells": cells.value, "bytes": mem.value, "cells_formula": cells.formula,
            "bytes_formula": mem.formula, "all_heads_bytes": mem.value * c.preset.heads, "side": n / PAIR_NS[-1]}


def _pairs(ctx: BuildContext, c: Costs) -> FrameBody:
    """The slider over real context lengths, beside the river sentence's own map: every pair one score."""
    river, _ = sentences(ctx)
    a, toks = river.attention, list(river.tokens)
    n = len(toks)
    keys = [str(i + 1) for i in range(n)]  # the keys by position: seven token names do not fit side by side
    pairs = derive_scores(tensor("pairs", f"{n} tokens → {n}² = {count(a.scaled.size)} scores", "scores", a.scaled,
                                 LAYOUT["pairs"], rows=[f"{tok} {i}" for i, tok in enumerate(toks, 1)], cols=keys),
                          a.q, a.k, row_names=toks, col_names=toks, scale=a.scale)
    return FrameBody(tensors=[pairs], widgets=[widget("slider", "slider", LAYOUT["slider"], {
        "options": [_pair_option(c, n) for n in PAIR_NS], "selected": 1, "heads": c.preset.heads,
        "title": "context length n",
        "square_label": f"area ∝ n²; the whole square is n = {count(PAIR_NS[-1])}"}, kind="scores")])


def top_keys(masked: np.ndarray, keep: int) -> np.ndarray:
    """An additive mask (0 keeps, −∞ blocks) that keeps each row's ``keep`` largest allowed scores."""
    order = np.argsort(-masked, axis=1, kind="stable")  # (n_q, n_k)  best first; −∞ last
    out = np.full(masked.shape, -np.inf)  # (n_q, n_k)
    rows = np.arange(masked.shape[0])[:, None]  # (n_q, 1)
    out[rows, order[:, :keep]] = 0.0
    return np.where(np.isfinite(masked), out, -np.inf)  # a blocked score stays blocked


def _kv(ctx: BuildContext, c: Costs) -> FrameBody:
    river, _ = sentences(ctx)
    dec = decode(river.q, river.k, river.v)
    toks = list(river.tokens)
    t = len(toks)
    body = FrameBody()
    for name, arr, w, kind in (("K", river.k, W_K, "key"), ("V", river.v, W_V, "value")):
        ct = tensor(f"{name}c", f"{name} cache after {t} tokens", kind, arr, LAYOUT[name], rows=toks,
                    cols=["1", "2", "3"], highlight=Highlight(rows=[t - 1]))
        body.tensors.append(derive_projection(ct, river.x, w, x_name="x", w_name=f"W_{name}", row_names=toks))
    growth = ", ".join(count(x) for x in dec.cache_numbers)
    per = c.kv_bytes_per_token_layer("mha")
    body.notes.append(note("grow", LAYOUT["grow"], growth=growth, bytes=count(per.value)))
    body.counters.append(counter("kvtok", c.kv_bytes_per_token("mha"), "MHA cache per token"))
    return body


def _mla(ctx: BuildContext, c: Costs) -> FrameBody:
    mha, mla = c.kv_bytes_per_token_layer("mha"), c.kv_bytes_per_token_layer("mla")
    kv = bars("kvbars", LAYOUT["kvbars"], "KV cache bytes per token per layer", ["MHA", "MLA"],
              np.array([mha.value, mla.value]), kind="neutral", digits=0, show_sum=False,
              value_labels=[f"{count(mha.value)} B", f"{count(mla.value)} B"], scale_max=None)
    n, layers = c.preset.max_positions or PAIR_NS[-1], c.preset.layers
    whole = np.array([c.kv_bytes_per_token(k).value * n for k in ("mha", "mla")])  # one full context, every layer
    ctx_bars = bars("ctxbars", LAYOUT["ctxbars"], f"one {count(n)}-token context, all {layers} layers",
                    ["MHA", "MLA"], whole, kind="neutral", digits=0, show_sum=False, scale_max=None,
                    value_labels=[f"{number(x / 1e9, 1)} GB" for x in whole])
    mla_note = note("mla", LAYOUT["mla"], mha_numbers=mha.formula.split(") ×")[0].lstrip("("),
                    mla_numbers=c.kv_numbers_per_token_layer("mla").formula,
                    ratio=number(c.kv_ratio("mha", "mla").value, 1), mla_matrix_weights=count(c.mla_weights().value))
    return FrameBody(widgets=[kv, ctx_bars], notes=[mla_note])


def _modern(ctx: BuildContext, c: Costs) -> FrameBody:
    top_k = c.preset.dsa_top_k  # the cost model's figure (DeepSeek-V3.2: index_topk)
    river = causal_river(ctx)
    a, toks = river.attention, list(river.tokens)
    logits = a.masked + top_keys(a.masked, SPARSE_KEEP)  # (n, n)  the causal map, each row's best keys only
    sparse = derive_weights(tensor("sparse", f"top {SPARSE_KEEP} keys per query", "weights",
                                   softmax(logits), LAYOUT["sparse"], rows=toks, cols=toks, heat=True),
                            logits, row_names=toks, col_names=toks)
    return FrameBody(tensors=[sparse], widgets=[cards("modern", LAYOUT["modern"], [
        card("mla", kind="neutral"), card("dsa", kind="neutral", top=count(top_k)),
        card("hybrid", kind="neutral", example=HYBRID_EXAMPLE), card("roles", kind="neutral"),
    ], columns=2)])


STAGES = {"pairs": _pairs, "kv": _kv, "mla": _mla, "modern": _modern}


@CHAPTER.builder("walk.cost", CostParams, notes=("grow", "mla"), cards=("mla", "dsa", "hybrid", "roles"))
def cost(ctx: BuildContext, p: CostParams) -> FrameBody:
    """n² pairs (a slider beside the sentence's map), the KV cache and MLA's smaller cache, modern variants
    beside a toy sparse map."""
    return STAGES[p.stage](ctx, costs(ctx.deck.preset))
