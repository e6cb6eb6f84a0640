"""Slide "Grouped-query attention" (``real.gqa``): the model's query heads share key/value heads;
what that saves in the KV cache per token (the cost model, with a preset built from the file's
sizes), and how it relates to chapter 2's multi-head latent attention (MLA).

The grouping is drawn as a table of which key/value head each query head reads, down the band; the
cache steps keep one sentence's cache per layer below the bars, as cells of one head vector each,
plain beside grouped, so the grouped cache is visibly a third of the width."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.costs import Preset, costs
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import display_name, token_labels

CACHE_TOP, CACHE_CELL, CACHE_GUTTER, CACHE_GAP = 390, 49, 121, 60  # the two caches share one cell width
NOTE = box(960, TOP, RIGHT - 960, CACHE_TOP - TOP - 24)  # one note box on all three steps, right of the titles
LAYOUT = {"reads": box(LEFT, TOP, 560, BOTTOM - TOP), "groups_note": NOTE, "bars": box(LEFT, TOP, 860, 200),
          "note": NOTE}


class GqaParams(Params):
    stage: Literal["groups", "cache", "mla"]


def file_preset(config, path_name: str) -> Preset:
    """The cost model's preset for a loaded model, every size read from its GGUF file."""
    return Preset(name=config.name, d_model=config.d_model, heads=config.heads, d_k=config.head_dim,
                  d_v=config.head_dim, layers=config.layers, kv_heads=config.kv_heads, vocab=config.vocab,
                  max_positions=config.context_length, source=f"GGUF metadata of {path_name}",
                  description="read from the model file")


def kv_figures(model) -> dict:
    """KV-cache bytes per token (all layers) as the model is (GQA) and as plain multi-head."""
    c = costs(file_preset(model.config, model.path.name))
    mha, gqa = c.kv_bytes_per_token("mha"), c.kv_bytes_per_token("gqa")
    ds = costs("deepseek-v3.2")
    return {"mha": mha, "gqa": gqa, "ratio": mha.value / gqa.value, "mha_layer": c.kv_bytes_per_token_layer("mha"),
            "gqa_layer": c.kv_bytes_per_token_layer("gqa"),
            "ds_mla_layer": ds.kv_bytes_per_token_layer("mla").value, "ds_ratio": ds.kv_ratio("mha", "mla").value,
            "ds_mha_layer": ds.kv_bytes_per_token_layer("mha").value}


def _groups(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    c = ctx.model.config
    reads = np.zeros((c.heads, c.kv_heads))  # (h, h_kv) 1 where a query head reads that key/value head
    for h in range(c.heads):
        reads[h, an.sentence.head(0, h).kv_head] = 1
    t = tensor("reads", "which key/value head each query head reads", "key", reads, LAYOUT["reads"],
               rows=[f"query head {h}" for h in range(c.heads)], cols=[f"K/V {g}" for g in range(c.kv_heads)],
               max_rows=c.heads, max_cols=c.kv_heads, digits=0, heat=True)
    share = note("share", LAYOUT["groups_note"], "neutral")  # the sizes: the deck's figures from the file
    return FrameBody(tensors=[t], notes=[share])


def caches(ctx: BuildContext) -> list:
    """One layer's cache of the deck's sentence, one cell per head vector kept (bf16, d_k numbers):
    as plain multi-head would keep it (a K and a V per query head) and as the model does (per
    key/value head). The cells' value is their size in bytes; the drawing is about their count."""
    c = ctx.model.config
    toks = token_labels(analysis(ctx).sentence.tokens)
    cell_bytes = 2 * c.head_dim
    out, x = [], LEFT
    for name, heads, what in (("plaincache", c.heads, "plain"), ("gqacache", c.kv_heads, "GQA")):
        cols = [f"K{h}" for h in range(heads)] + [f"V{h}" for h in range(heads)]
        w = CACHE_GUTTER + CACHE_CELL * len(cols)
        out.append(tensor(name, f"{what}: {len(cols)} per token", "neutral",
                          np.full((len(toks), len(cols)), float(cell_bytes)), box(x, CACHE_TOP, w, BOTTOM - CACHE_TOP),
                          rows=toks, cols=cols, max_rows=len(toks), max_cols=len(cols), digits=0, reveal="none",
                          gutter=CACHE_GUTTER))
        x += w + CACHE_GAP
    return out


def _cache(ctx: BuildContext) -> FrameBody:
    k = kv_figures(ctx.model)
    c = ctx.model.config
    bars = widget("weight-bars", "kvbars", LAYOUT["bars"], {
        "title": f"KV cache per token, bytes, all {c.layers} layers (bf16)",
        "labels": [f"plain: {c.heads} K/V", f"GQA: {c.kv_heads} K/V"],
        "values": [k["mha"].value, k["gqa"].value], "digits": 0, "highlight": 1, "sum": None,
        "value_labels": [count(k["mha"].value), count(k["gqa"].value)]}, kind="neutral")  # a cost, not a role
    formula = note("formula", LAYOUT["note"], "neutral", plain_formula=k["mha_layer"].formula,
                   plain_bytes=count(k["mha_layer"].value), grouped_formula=k["gqa_layer"].formula,
                   grouped_bytes=count(k["gqa_layer"].value))
    return FrameBody(tensors=caches(ctx), widgets=[bars], notes=[formula])


def _mla(ctx: BuildContext) -> FrameBody:
    k = kv_figures(ctx.model)
    c = ctx.model.config
    bars = widget("weight-bars", "kvbars", LAYOUT["bars"], {
        "title": f"times less cache than plain multi-head: {display_name(c)} (GQA), DeepSeek-V3.2 (MLA)",
        "labels": ["GQA", "MLA"], "values": [k["ratio"], k["ds_ratio"]],
        "digits": 1, "highlight": 1, "sum": None,
        "value_labels": [f"{number(k['ratio'], 1)}×", f"{number(k['ds_ratio'], 1)}×"]}, kind="neutral")
    formula = note("formula", LAYOUT["note"], "neutral", latent_bytes=count(k["ds_mla_layer"]),
                   plain_bytes=count(k["ds_mha_layer"]))
    return FrameBody(tensors=caches(ctx), widgets=[bars], notes=[formula])


STAGES = {"groups": _groups, "cache": _cache, "mla": _mla}


@CHAPTER.builder("real.gqa", GqaParams, notes=("share", "formula"))
def gqa(ctx: BuildContext, p: GqaParams) -> FrameBody:
    """Query heads sharing key/value heads; the KV cache it saves, beside MLA's."""
    return STAGES[p.stage](ctx)
