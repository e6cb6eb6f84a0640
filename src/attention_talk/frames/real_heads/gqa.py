"""Slide "Grouped-query attention" (``real.gqa``): the model's query heads share key/value heads,
drawn as the ``gqa`` widget's wiring (the grouping is the engine's rule on the file's head counts);
what that saves in the KV cache per token (the cost model, with a preset built from the file's
sizes), as a bar that shrinks from plain multi-head to grouped; and chapter 2's multi-head latent
attention (MLA) as a third bar, DeepSeek-V3.2's share of its own plain cache."""

from __future__ import annotations

from typing import Literal

from attention_talk.engine.costs import Preset, costs
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import CONTENT
from attention_talk.frames.kit.rope_gqa import gqa_data
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import display_name
from attention_talk.frames.widgets.mechanisms_model import GqaBar

LAYOUT = {"gqa": CONTENT}


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
            "ds_mha_layer": ds.kv_bytes_per_token_layer("mha").value, "ds_mla": ds.kv_bytes_per_token_layer("mla"),
            "ds_mha": ds.kv_bytes_per_token_layer("mha")}


def cache_bars(model, stage: str) -> list[GqaBar]:
    """Plain and grouped cache per token of the model (bytes, all layers); with ``mla``, DeepSeek-V3.2's
    MLA cache as a share of its own plain one. Each bar's value is its share of its plain cache."""
    c, k = model.config, kv_figures(model)
    bars = [GqaBar(label=f"plain: {c.heads} K + {c.heads} V", value=1.0, text=f"{count(k['mha'].value)} bytes",
                   formula=f"{c.layers} layers × {k['mha_layer'].formula}"),
            GqaBar(label=f"grouped: {c.kv_heads} K + {c.kv_heads} V", value=k["gqa"].value / k["mha"].value,
                   text=f"{count(k['gqa'].value)} bytes, {number(k['ratio'], 1)}× less",
                   formula=f"{c.layers} layers × {k['gqa_layer'].formula}")]
    if stage == "mla":
        bars.append(GqaBar(label="DeepSeek-V3.2, MLA", value=k["ds_mla_layer"] / k["ds_mha_layer"],
                           text=f"{number(k['ds_ratio'], 1)}× less than its plain",
                           formula=f"{k['ds_mla'].formula} against plain {k['ds_mha'].formula}, per layer"))
    return bars


@CHAPTER.builder("real.gqa", GqaParams)
def gqa(ctx: BuildContext, p: GqaParams) -> FrameBody:
    """Query heads wired to the key/value heads they share; the KV cache bar it shrinks, beside MLA's."""
    c = ctx.model.config
    unit = (f"KV cache per token, all {c.layers} layers (bf16)" if p.stage != "mla"
            else "bar: share of each model's own plain multi-head cache")
    data = gqa_data(f"one layer of {display_name(c)}: every query head reads its group's K and V", c.heads,
                    c.kv_heads, c.head_dim, cache_bars(ctx.model, p.stage) if p.stage != "groups" else [], unit,
                    p.stage)
    return FrameBody(widgets=[widget("gqa", "gqa", LAYOUT["gqa"], data, kind="key")])
