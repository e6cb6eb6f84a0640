"""Slide "Grouped-query attention" (``real.gqa``): the model's query heads share key/value heads;
what that saves in the KV cache per token (the cost model, with a preset built from the file's
sizes), and how it relates to chapter 2's multi-head latent attention (MLA)."""

from __future__ import annotations

from typing import Literal

from attention_talk.engine.costs import Preset, costs
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name

LAYOUT = {"groups": box(60, 140, 1480, 330), "groups_note": box(60, 510, 1480, 150),
          "bars": box(60, 130, 960, 330), "note": box(1070, 140, 470, 460), "mla": box(60, 490, 960, 190)}


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
    groups: dict[int, list[int]] = {}
    for h in range(c.heads):
        groups.setdefault(an.sentence.head(0, h).kv_head, []).append(h)
    # one card per key/value head, listing the query heads that read it (the list is notation)
    items = [card("group", kind="key", group=g, readers=", ".join(str(h) for h in hs))
             for g, hs in sorted(groups.items())]
    share = note("share", LAYOUT["groups_note"], "neutral")  # the sizes: the deck's figures from the file
    return FrameBody(widgets=[cards("groups", LAYOUT["groups"], items, columns=len(items), kind="key")],
                     notes=[share])


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
    return FrameBody(widgets=[bars], notes=[formula])


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
    return FrameBody(widgets=[bars], notes=[formula])


STAGES = {"groups": _groups, "cache": _cache, "mla": _mla}


@CHAPTER.builder("real.gqa", GqaParams, notes=("share", "formula"), cards=("group",))
def gqa(ctx: BuildContext, p: GqaParams) -> FrameBody:
    """Query heads sharing key/value heads; the KV cache it saves, beside MLA's."""
    return STAGES[p.stage](ctx)
