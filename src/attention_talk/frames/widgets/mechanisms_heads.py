"""Widget kinds that draw many heads: each head's own map, their outputs concatenated and W_O, and
one measure over every head of a model as a heatmap whose winner is zoomed into its map."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from attention_talk.frames.widgets.base import Widget, WidgetData

Cell = tuple[int, int]


class HeadMap(WidgetData):
    title: str = Field(description="The head's name, e.g. 'head 1'.")
    weights: list[list[float]] = Field(description="Its map A = softmax(QKᵀ/√d_k + M), one row per query "
                                       "(0 where the causal mask blocks).")
    job: str | None = Field(default=None, description="What the measure that this head scores highest on looks for, "
                            "e.g. 'the token before'; left out until the heads are measured.")
    score: float | None = Field(default=None, description="The head's score on that measure (0–1): the share of "
                                "its attention on the measure's cells.")
    targets: list[Cell] = Field(default=[], description="The (query, key) cells that measure averages.")


class HeadMapsData(WidgetData):
    title: str = Field(description="What the maps are, e.g. 'eight designed heads, one sentence'.")
    tokens: list[str] = Field(description="The sentence: rows and columns of every map.")
    heads: list[HeadMap] = Field(description="Six to eight heads, each with its own map.")
    columns: int = Field(default=4, description="Maps per row.")
    named: bool = Field(description="Show each head's job and the measure's cells (else the maps alone).")
    labels: Literal["slanted", "upright"] = Field(default="slanted", description="Column labels slanted (short "
                                                  "tokens, many maps) or upright (long words: their boxes never meet).")


class HeadMapsWidget(Widget):
    """Many heads as small maps side by side; named, each by the measure it scores highest on
    (views/head-maps.js)."""

    type: Literal["head-maps"]
    data: HeadMapsData


class ConcatBlock(WidgetData):
    title: str = Field(description="The head's name, e.g. 'head 1'.")
    job: str | None = Field(default=None, description="The head's measured job, if named.")
    shape: tuple[int, int] = Field(description="Its output Z_h = A_h V_h: n × d_v.")


class ConcatData(WidgetData):
    blocks: list[ConcatBlock] = Field(description="Each head's output, in head order.")
    concat: tuple[int, int] = Field(description="Shape of the concatenation: n × h·d_v.")
    w_o: tuple[int, int] = Field(description="Shape of W_O: h·d_v × d.")
    output: tuple[int, int] = Field(description="Shape of O = concat · W_O: n × d.")
    stage: Literal["heads", "concat", "product"] = Field(
        description="heads: the outputs apart; concat: slid together; product: times W_O, back to width d.")
    token: str = Field(description="The token whose row of O is shown.")
    columns: list[int] = Field(description="1-based columns of O shown for that token (a few, the last after a gap).")
    values: list[float] = Field(description="O's values of that token at those columns.")


class ConcatWidget(Widget):
    """Head outputs as blocks side by side, slid into one concatenation, times W_O (views/concat.js)."""

    type: Literal["concat"]
    data: ConcatData


class HeatmapZoom(WidgetData):
    title: str = Field(description="The winning head's map, e.g. 'layer 3, head 1'.")
    rows: list[str] = Field(description="Its query tokens.")
    cols: list[str] = Field(description="Its key tokens.")
    weights: list[list[float]] = Field(description="Its weights A at those rows and columns.")
    targets: list[Cell] = Field(default=[], description="Cells (indexes into rows, cols) the measure averages.")


class HeatmapData(WidgetData):
    title: str = Field(description="The measure, e.g. 'previous token: share of attention on the token before'.")
    rows: list[str] = Field(description="Row names (heads).")
    cols: list[str] = Field(description="Column names (layers).")
    row_axis: str = Field(description="What the rows are, e.g. 'head'.")
    col_axis: str = Field(description="What the columns are, e.g. 'layer'.")
    values: list[list[float]] = Field(description="The measure of every head (0–1), rows × cols; shown as "
                                      "colour, its number on hover or focus.")
    winner: Cell = Field(description="(row, col) of the top scorer (engine.heads.best_head).")
    stage: Literal["grid", "winner", "zoom"] = Field(
        description="grid: the heatmap; winner: the top scorer outlined; zoom: its cell grown into its map.")
    zoom: HeatmapZoom | None = Field(default=None, description="The winner's map (the zoom stage).")
    winner_identity: str | None = Field(default=None, description="Continuity identity of the winner's cell "
                                        "(its data-identity): a next step that draws that head's map under the "
                                        "same identity gets the cell flown into it.")


class HeatmapWidget(Widget):
    """A measure over every head as a heatmap without numbers; the winner outlined, then zoomed into
    its own map (views/heatmap.js)."""

    type: Literal["heatmap"]
    data: HeatmapData
