"""Section 8, the cost (``walk.cost``): the n² attention map as a slider, the KV cache growing token
by token, MLA's smaller cache, and modern variants."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import Costs, costs, decode
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_projection
from attention_talk.frames.kit.layout import LEFT, box, columns, rows
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import W_K, W_V
from attention_talk.frames.walkthrough.shared import band, bars, cards, counter, sentences, to_right

_CACHES = columns(box(LEFT, 130, 1080, 400), [1, 1])
_BILLS = rows(to_right(860, 120, 640), [1, 1], gap=40)  # the two bills, stacked right of the cards
LAYOUT = {
    "slider": band(130, 560),
    "K": _CACHES[0], "V": _CACHES[1], "grow": to_right(1180, 140, 560),
    "kvbars": box(LEFT, 130, 860, 280), "ctxbars": box(LEFT, 450, 860, 280), "mla": to_right(980, 300, 300),
    "modern": box(LEFT, 120, 760, 640), "reads": _BILLS[0], "cells": _BILLS[1],
}
PAIR_NS = (1_024, 4_096, 16_384, 65_536, 163_840)
HYBRID_EXAMPLE = "Kimi K3"  # a model described as mixing attention patterns across layers


class CostParams(Params):
    stage: Literal["pairs", "kv", "mla", "modern"]


def _pair_option(c: Costs, n: int) -> dict:
    """The attention map at context length ``n``: cells, bytes for one head and for all heads."""
    cells, mem = c.attention_map_cells(n), c.attention_map_bytes(n)
    return {"n": n, "cells": cells.value, "bytes": mem.value, "cells_formula": cells.formula,
            "bytes_formula": mem.formula, "all_heads_bytes": mem.value * c.preset.heads, "side": n / PAIR_NS[-1]}


def _pairs(ctx: BuildContext, c: Costs) -> FrameBody:
    return FrameBody(widgets=[widget("slider", "slider", LAYOUT["slider"], {
        "options": [_pair_option(c, n) for n in PAIR_NS], "selected": 1, "heads": c.preset.heads,
        "title": "context length n",
        "square_label": f"area ∝ n²; the whole square is n = {count(PAIR_NS[-1])}"}, kind="scores")])


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
    n = c.preset.max_positions or PAIR_NS[-1]
    top_k = c.preset.dsa_top_k  # the cost model's figure (DeepSeek-V3.2: index_topk)
    reads = np.array([n, top_k])  # keys one query reads: all of them, or DSA's top-k
    scores = np.array([c.attention_map_cells(n).value, n * top_k])  # scores per head for a whole context
    return FrameBody(widgets=[cards("modern", LAYOUT["modern"], [
        card("mla", kind="neutral"), card("dsa", kind="neutral", top=count(top_k)),
        card("hybrid", kind="neutral", example=HYBRID_EXAMPLE), card("roles", kind="neutral"),
    ], columns=2),
        bars("reads", LAYOUT["reads"], f"keys one query reads, n = {count(n)}", ["dense", "DSA"], reads,
             kind="scores", digits=0, show_sum=False, scale_max=None, value_labels=[count(int(x)) for x in reads]),
        bars("cells", LAYOUT["cells"], "scores per head for the whole context",
             ["dense n²", f"DSA n × {count(top_k)}"], scores, kind="scores", digits=0,
             show_sum=False, scale_max=None,
             value_labels=[count(int(x)) for x in scores])])


STAGES = {"pairs": _pairs, "kv": _kv, "mla": _mla, "modern": _modern}


@CHAPTER.builder("walk.cost", CostParams, notes=("grow", "mla"), cards=("mla", "dsa", "hybrid", "roles"))
def cost(ctx: BuildContext, p: CostParams) -> FrameBody:
    """n² pairs (a slider), the KV cache and MLA's smaller cache, modern variants."""
    return STAGES[p.stage](ctx, costs(ctx.deck.preset))
