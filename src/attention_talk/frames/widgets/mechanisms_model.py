"""Widget kinds that draw how a real model saves work on positions and on memory: RoPE as rotating
2-D arrows (one per coordinate pair) and grouped-query attention as wiring from query heads to the
key/value heads they share, with the KV cache it saves."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from attention_talk.frames.widgets.base import Widget, WidgetData

Vec2 = tuple[float, float]


class RopePair(WidgetData):
    index: int = Field(description="Which coordinate pair i of the d/2 (coordinates 2i and 2i + 1).")
    theta: float = Field(description="Its rate θᵢ = base^(−2i/d), radians per position (engine.rope).")
    name: str = Field(description="How fast it turns, e.g. 'fast', 'middle', 'slow'.")


class RopeColumn(WidgetData):
    label: str = Field(description="What the column is, e.g. 'position 3', '3 apart', 'at 108'.")
    q_pos: int = Field(description="Position the query's arrow (or the one arrow) is turned to.")
    k_pos: int | None = Field(default=None, description="Position the key's arrow is turned to (offset stages).")
    q: list[Vec2] = Field(description="Per pair, the query's two coordinates before RoPE (a unit arrow in 'turn').")
    k: list[Vec2] | None = Field(default=None, description="Per pair, the key's two coordinates before RoPE.")
    q_angles: list[float] = Field(description="Per pair, the angle RoPE turns it by: q_pos·θᵢ (engine.rope_angles).")
    k_angles: list[float] | None = Field(default=None, description="Per pair, k_pos·θᵢ.")
    score: float | None = Field(default=None, description="R(q_pos)q · R(k_pos)k over all d numbers (engine.rope).")


class RopeData(WidgetData):
    title: str = Field(description="What the arrows are, e.g. 'the angle each pair turns by at position p'.")
    base: float = Field(description="The RoPE base the rates come from (the model file's rope.freq_base).")
    width: int = Field(description="d: the head width the pairs are cut from.")
    pairs: list[RopePair] = Field(description="The pairs drawn, one row each (a few of the d/2).")
    columns: list[RopeColumn] = Field(description="One dial per pair and column.")
    marked: int | None = Field(default=None, description="The column outlined: the pair as it stands in the sentence.")
    stage: Literal["turn", "offsets", "places"] = Field(
        description="turn: one arrow per pair turned by position·θᵢ; offsets: q fixed, k moved to other distances "
        "(the angle between changes); places: both moved along by the same amount (the angle between stays).")


class RopeWidget(Widget):
    """RoPE as rotating arrows: each pair of a query's (and key's) coordinates drawn as a 2-D arrow on
    a dial, turned by position × θᵢ; fast pairs spin, slow ones barely move, and the angle between a
    query's and a key's arrow depends only on their distance (views/rope.js)."""

    type: Literal["rope"]
    data: RopeData


class GqaBar(WidgetData):
    label: str = Field(description="Which cache, e.g. 'plain multi-head: 9 K and 9 V per layer'.")
    value: float = Field(description="Its share of its model's plain multi-head cache (plain is 1): the bar's length.")
    text: str = Field(description="The value as printed, e.g. '69,120 bytes'.")
    formula: str = Field(description="How the value was computed (the cost model's formula).")


class GqaData(WidgetData):
    title: str = Field(description="What is wired, e.g. 'one layer of SmolLM2-135M'.")
    heads: int = Field(description="Query heads per layer (the file's attention.head_count).")
    kv_heads: int = Field(description="Key/value heads per layer (attention.head_count_kv).")
    groups: list[int] = Field(description="For each query head, the key/value head it reads (engine.gqa.kv_head_of).")
    head_dim: int = Field(description="Numbers per head vector (d_k = d_v).")
    bars: list[GqaBar] = Field(description="The cache bars: plain multi-head first, then grouped (then MLA).")
    unit: str = Field(description="What the bars measure, e.g. 'KV cache per token, all 30 layers'.")
    stage: Literal["groups", "cache", "mla"] = Field(
        description="groups: one K/V per query head slides into the shared ones, the wires drawn; cache: the "
        "cache bar shrinks from plain to grouped; mla: a third bar, MLA's share of its plain cache.")


class GqaWidget(Widget):
    """Grouped-query attention as wiring: every query head wired to the key/value head its group shares,
    and the KV-cache bar shrinking from the plain multi-head size to the grouped one (views/gqa.js)."""

    type: Literal["gqa"]
    data: GqaData


class SizesBar(WidgetData):
    count: int = Field(description="How many blocks (heads, layers; 1 for a width).")
    size: float = Field(description="The length of each block, in the row's unit (numbers per head, or 1).")
    text: str = Field(description="The bar's figure as printed, e.g. '9 × 64'.")
    source: str = Field(description="Where the figure was read, e.g. the GGUF metadata key or the cost-model preset.")


class SizesRow(WidgetData):
    title: str = Field(description="The quantity, e.g. 'query heads × head width d_k'.")
    kind: Literal["query", "key", "output", "neutral"] = Field(description="The colour role of its blocks.")
    unit: str = Field(description="What a block's length counts, e.g. 'numbers' or 'layers': rows of one unit "
                      "share one scale (the longest bar of that unit fills the width).")
    bars: list[SizesBar] = Field(description="One bar per model, in the order of ``models``.")


class SizesData(WidgetData):
    title: str = Field(description="What is drawn, e.g. 'SmolLM2-135M as its file states it'.")
    models: list[str] = Field(description="The models, one bar each per row (the first alone in 'file').")
    rows: list[SizesRow] = Field(description="The quantities, one row each.")
    stage: Literal["file", "compare"] = Field(
        description="file: the first model's bars; compare: every model's bars, on one scale per unit, so "
        "the first model's bars shrink to their share.")


class SizesWidget(Widget):
    """A model's sizes as proportional blocks: its heads as blocks as long as their width, its layers as
    slabs; then beside another model on one scale per row (views/sizes.js)."""

    type: Literal["sizes"]
    data: SizesData
