"""Widget kinds that show numbers and words: token chips, bars, cards, histograms, growth and
cost sliders, a token picker, an equation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from attention_talk.frames.primitives import Kind
from attention_talk.frames.widgets.base import Widget, WidgetData


class TokensData(WidgetData):
    tokens: list[str] = Field(description="The sentence's tokens, one chip each, left to right.")
    focus: int | None = Field(description="Index of the marked token; null marks none.")
    links: list[float] | None = Field(description="Arc strength 0–1 from the focus token to each token; "
                                      "null draws no arcs.")
    caption: str = Field(description="A caption for the row (not drawn by the view today).")
    drop: Literal["none", "focus", "every"] = Field(
        default="none", description="none: the chips along the box's bottom (arcs rise above them); "
        "focus: the chips along its top and an arrow from the focus token down to the box's bottom, "
        "where its vector is drawn; every: an arrow and a “?” under every chip (each token asks).")
    map: list[list[float | None]] | None = Field(
        default=None, description="The attention weights of the sentence (row = the token that asks, "
        "null = masked), drawn beside the chips as a small map whose focus row is the arcs; null draws none.")


class TokensWidget(Widget):
    """A sentence as a row of token chips, with optional arcs from the focus token (views/tokens.js)."""

    type: Literal["tokens"]
    data: TokensData


class GrowthSize(WidgetData):
    n: int = Field(description="Context length in tokens.")
    cells: int = Field(description="Cells of one head's attention map: n².")
    cells_formula: str = Field(description="How cells is computed.")
    bytes: int = Field(description="Bytes of one head's map.")
    bytes_formula: str = Field(description="How bytes is computed.")
    qk_flops: int = Field(description="Q·Kᵀ FLOPs of one head over n tokens: 2·d_k·n² (the counter's scope "
                          "on that slide; A·V, the projections and the other heads come later).")
    qk_formula: str = Field(description="How qk_flops is computed.")


class GrowthData(WidgetData):
    sizes: list[GrowthSize] = Field(description="Context lengths n0, 2·n0, 4·n0 … with what grows.")
    index: int = Field(description="Index into sizes shown first.")
    interactive: bool = Field(description="Show the −/+ buttons and the slider.")
    source: str = Field(description="Where the sizes come from (not drawn by the view today).")


class GrowthWidget(Widget):
    """The attention map growing with the square of the context (views/growth.js)."""

    type: Literal["growth"]
    data: GrowthData


class WeightBarsData(WidgetData):
    title: str = Field(description="Heading above the bars.")
    labels: list[str] = Field(description="One label per bar.")
    values: list[float] = Field(description="One value per bar; a bar's length is |value| / scale_max.")
    scale_max: float | None = Field(default=None, gt=0, description="The value of a full track: 1 for "
                                    "probabilities; left out, the largest |value| fills the track.")
    digits: int = Field(description="Decimals of the printed values.")
    highlight: int | None = Field(description="Index of the emphasised bar; null for none.")
    sum: float | None = Field(description="The values' sum, printed under the bars; null hides it.")
    value_labels: list[str] | None = Field(default=None, description="Printed instead of the values "
                                           "when given (the chapter-1 builder leaves the key out).")
    future: list[bool] | None = Field(default=None, description="True where the causal mask blocks the bar "
                                      "(its weight is exactly 0): drawn with the masked look.")
    masked_text: str = Field(default="future: masked", description="What a masked bar's track says (a bar "
                             "masked for another reason than the future says that reason).")


class WeightBarsWidget(Widget):
    """One labelled bar per value, e.g. a row of attention weights (views/weight-bars.js)."""

    type: Literal["weight-bars"]
    data: WeightBarsData


class Card(WidgetData):
    title: str = Field(description="The card's heading.")
    tag: str | None = Field(default=None, description="A short line under the title; the key is left out "
                            "for none.")
    kind: Kind | None = Field(default=None, description="The card's colour role; left out, the widget's kind.")
    body: str = Field(description="The card's text.")


class CardsData(WidgetData):
    cards: list[Card] = Field(description="The cards, in reading order.")
    columns: int = Field(description="Cards per row.")
    arrows: bool = Field(description="Join neighbouring cards of a row with arrows.")
    active: int | None = Field(description="Index of the emphasised card; null for none.")
    align: Literal["center", "top"] = Field(default="center", description="Centre the cards in their box, or "
                                            "stack them from its top (cards that arrive one per step then never "
                                            "move the earlier ones).")


class CardsWidget(Widget):
    """A row or grid of text cards (views/cards.js)."""

    type: Literal["cards"]
    data: CardsData


class HistogramSeries(WidgetData):
    label: str = Field(description="What the series counts.")
    kind: Kind = Field(description="The series' colour role.")
    edges: list[float] = Field(description="Bin edges, one more than counts.")
    counts: list[int] = Field(description="Values per bin.")
    stat: str = Field(description="A summary printed after the label, e.g. the variance.")


class HistogramData(WidgetData):
    series: list[HistogramSeries] = Field(description="The series, one row each, top to bottom, all on one "
                                          "shared x axis (from the smallest to the largest edge).")
    caption: str = Field(description="Text under the plot.")
    rows: int | None = Field(default=None, ge=1, description="Rows to lay out (at least the series): a row "
                             "kept free for a series a later step adds, so nothing moves.")
    ticks: list[float] | None = Field(default=None, description="x values to label on the shared axis.")


class HistogramWidget(Widget):
    """Histograms computed by the builder, stacked on one shared x axis (views/histogram.js)."""

    type: Literal["histogram"]
    data: HistogramData


class EquationData(WidgetData):
    name: str = Field(description="Name of one of the slide's equations (the deck's ``equations``).")


class EquationWidget(Widget):
    """One of the slide's server-rendered MathML equations (views/equation.js)."""

    type: Literal["equation"]
    data: EquationData


class TokenPickerData(WidgetData):
    tokens: list[str] = Field(description="The query tokens to choose from.")
    rows: list[list[float]] = Field(description="Each token's row of attention weights, over all tokens.")
    sums: list[float] = Field(description="Each row's sum.")
    selected: int = Field(description="Index of the token chosen first.")
    title: str = Field(description="Heading of the bars; the chosen token is appended.")
    scale_max: float | None = Field(default=None, gt=0, description="The value of a full track (1 for "
                                    "weights); left out, the row's largest weight fills it.")
    causal: bool = Field(default=False, description="The rows are causal: tokens after the chosen one are "
                         "marked as future (their weight is exactly 0).")


class TokenPickerWidget(Widget):
    """Choose a query token and see its row of weights (views/token-picker.js)."""

    type: Literal["token-picker"]
    data: TokenPickerData


class SliderOption(WidgetData):
    n: int = Field(description="Context length.")
    cells: int = Field(description="Pairs scored by one head: n².")
    bytes: int = Field(description="Bytes of one head's map.")
    cells_formula: str = Field(description="How cells is computed.")
    bytes_formula: str = Field(description="How bytes is computed.")
    all_heads_bytes: int = Field(description="Bytes of the maps of all heads.")
    side: float = Field(description="Side of the drawn square, as a fraction of the largest n.")


class SliderData(WidgetData):
    options: list[SliderOption] = Field(description="The context lengths to choose from, with their costs.")
    selected: int = Field(description="Index of the option shown first.")
    heads: int = Field(description="Number of heads, for the all-heads line.")
    title: str = Field(description="The slider's label.")
    square_label: str = Field(description="Text under the square.")


class SliderWidget(Widget):
    """Pick a context length; see the pair count and map memory (views/slider.js)."""

    type: Literal["slider"]
    data: SliderData


class PickerHead(WidgetData):
    title: str = Field(description="The head's button label, e.g. 'head 1 · previous word'.")
    weights: list[list[float]] = Field(description="The head's attention weights A (n × n), from the engine.")
    summary: str = Field(description="One sentence on what this head does, with computed figures.")


class HeadPickerData(WidgetData):
    tokens: list[str] = Field(description="The sentence's tokens: rows (queries) and columns (keys).")
    heads: list[PickerHead] = Field(description="The heads the presenter can switch between.")
    selected: int = Field(description="Index of the head shown first.")
    focus: int | None = Field(default=None, description="Index of a query row to outline; null for none.")
    show_summary: bool = Field(default=True, description="Print the selected head's summary beside its map.")


class HeadPickerWidget(Widget):
    """Switch between heads and see each one's map of weights (views/head-picker.js)."""

    type: Literal["head-picker"]
    data: HeadPickerData


class LinkData(WidgetData):
    title: str = Field(description="A heading above the link.")
    text: str = Field(description="The link's text.")
    href: str = Field(pattern=r"^/[^/\\]", description="Where it goes: a path on this site (starts with one '/'; "
                                                      "never another origin).")
    detail: str = Field(default="", description="A line under the link, e.g. what is preloaded.")


class LinkWidget(Widget):
    """A link to another page of this site, e.g. the lab with a sentence preloaded (views/link.js)."""

    type: Literal["link"]
    data: LinkData
