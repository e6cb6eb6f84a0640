"""Widget kinds that draw the model: blocks, neurons, heads, the flow of one head, an RNN, the
stages of attention, FlashAttention's tiles."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from attention_talk.frames.widgets.base import Widget, WidgetData


class StackData(WidgetData):
    tokens: list[str] = Field(description="The input sentence, drawn under the stack.")
    layers: int = Field(description="Number of transformer blocks.")
    d_model: int = Field(description="Model width d: numbers per token after the embedding.")
    heads: int = Field(description="Attention heads per layer (not drawn by the view today).")
    vocab: int = Field(description="Vocabulary size (not drawn by the view today).")
    zoom: bool = Field(description="Open the first block to show attention and the feed-forward part.")
    dense_layers: int | None = Field(default=None, description="The first blocks whose feed-forward part is "
                                     "dense (the rest: a mixture of experts); given, each block drawn shows "
                                     "its two parts, attention first.")


class StackWidget(Widget):
    """The model as a stack of blocks; zoomed, the inside of block 1 (views/stack.js)."""

    type: Literal["stack"]
    data: StackData


class DenseNode(WidgetData):
    index: int = Field(description="1-based position of the input or output.")
    value: float = Field(description="Its number.")


class DenseData(WidgetData):
    inputs: list[DenseNode] = Field(description="The inputs drawn (a few, the last one after a gap).")
    n_in: int = Field(description="Number of inputs in all (d).")
    outputs: list[DenseNode] = Field(description="The outputs drawn (a few, the last one after a gap).")
    n_out: int = Field(description="Number of outputs in all (d_k).")
    focus_output: int | None = Field(description="Index into outputs of the neuron whose fan-in is drawn; "
                                     "null for none.")
    all_links: bool = Field(description="Draw every connection between the drawn nodes.")
    token: str = Field(description="The token whose row goes in.")


class DenseWidget(Widget):
    """The query projection drawn as a dense layer of neurons (views/dense.js)."""

    type: Literal["dense"]
    data: DenseData


class FlowData(WidgetData):
    X: list[int] = Field(description="Shape of the input X.")
    W_Q: list[int] = Field(description="Shape of W_Q.")
    W_K: list[int] = Field(description="Shape of W_K.")
    W_V: list[int] = Field(description="Shape of W_V.")
    Q: list[int] = Field(description="Shape of Q.")
    K: list[int] = Field(description="Shape of K.")
    V: list[int] = Field(description="Shape of V.")
    map: list[int] = Field(description="Shape of the score map QKᵀ.")
    A: list[int] = Field(description="Shape of the weights A = softmax(QKᵀ/√d_k + M).")
    Z: list[int] = Field(description="Shape of the head's output Z = A·V.")
    W_O: list[int] = Field(description="Shape of W_O.")
    O: list[int] = Field(description="Shape of O = Z·W_O.")  # noqa: E741 - named after the matrix
    head_box: bool = Field(description="Draw the box that makes the flow one head.")


class FlowWidget(Widget):
    """One head's whole computation, every array with its shape (views/flow.js)."""

    type: Literal["flow"]
    data: FlowData


class HeadsData(WidgetData):
    heads: int = Field(description="Number of heads.")
    d_model: int = Field(description="Model width d.")
    d_k: int = Field(description="Key width per head (not drawn by the view today).")
    d_v: int = Field(description="Value width per head.")
    n: int = Field(description="Tokens in the sentence.")
    stage: Literal["many", "sum", "concat", "total"] = Field(description="What the view shows below the heads.")
    per_head_weights: int = Field(description="Weights of one head: W_Q, W_K, W_V and its slice of W_O.")
    all_weights: int = Field(description="Attention weights of the whole layer.")


class HeadsWidget(Widget):
    """Many heads side by side, their outputs summed or concatenated (views/heads.js)."""

    type: Literal["heads"]
    data: HeadsData


class RnnData(WidgetData):
    source: list[str] = Field(description="Source tokens the encoder reads.")
    states: list[str] = Field(description="Names of the encoder states, one per source token.")
    target: list[str] = Field(description="Target tokens of the decoder.")
    mode: Literal["encoder", "bottleneck", "attention", "context"] = Field(
        description="What feeds the decoder: nothing drawn yet, only the last state, an arc from every state "
                    "(its width the weight), or those arcs and the context vector as their blend.")
    weights: list[float] | None = Field(description="Attention weight of each state for the focus word (the "
                                        "engine's softmax; attention and context modes); null otherwise.")
    focus: int = Field(description="Index of the target word being produced.")
    values: list[list[float]] | None = Field(default=None, description="Each state's numbers (hᵢ, one list per "
                                             "state), drawn as small bars under it in encoder mode: the fixed "
                                             "width of every state.")


class RnnWidget(Widget):
    """An RNN encoder–decoder: the bottleneck, then attention over every state as arcs whose width is
    the weight, never overlapping, and the context vector as their blend (views/rnn.js)."""

    type: Literal["rnn"]
    data: RnnData


class PipelineStage(WidgetData):
    title: str = Field(description="The stage's operation, e.g. 'Q = X·W_Q'.")
    formula: str = Field(description="Its operand shapes.")
    shape: str = Field(description="Its result's shape.")


class PipelineData(WidgetData):
    stages: list[PipelineStage] = Field(description="The stages, top to bottom.")
    active: int = Field(description="Index of the current stage; earlier ones are drawn as done.")
    first: int | None = Field(None, description="Index of the first stage of the current group (first…active "
                                                "highlighted by one moving frame); none: the active stage alone.")


class PipelineWidget(Widget):
    """The stages of self-attention stacked, the active one highlighted (views/pipeline.js)."""

    type: Literal["pipeline"]
    data: PipelineData


FlashStage = Literal["tile", "skip", "done"]


class FlashTile(WidgetData):
    i: int = Field(description="Query block index.")
    j: int = Field(description="Key block index.")
    rows: tuple[int, int] = Field(description="[start, stop) of the tile's query rows.")
    cols: tuple[int, int] = Field(description="[start, stop) of the tile's key rows.")
    s: list[list[float | None]] = Field(description="The tile's scores S = Q_i K_jᵀ · scale; null where "
                                        "the causal mask blocks (−∞).")
    m_tilde: list[float] = Field(description="Row maxima of S.")
    l_tilde: list[float] = Field(description="Row sums of exp(S − m̃).")
    m: list[float] = Field(description="Running row maxima after this tile.")
    l: list[float] = Field(description="Running row sums after this tile.")  # noqa: E741 - the paper's ℓ
    o: list[list[float | None]] = Field(description="Running output rows Z after this tile.")
    m_before: list[float | None] = Field(default=[], description="Running row maxima before this tile; null "
                                         "(−∞) where the row has seen no key yet.")
    l_before: list[float] = Field(default=[], description="Running row sums before this tile (0: none yet).")
    o_before: list[list[float]] = Field(default=[], description="Running output rows before this tile.")
    alpha: list[float] = Field(default=[], description="e^(m_before − m): the factor the old sum and output "
                               "shrink by when the tile brings a larger score (1: no new max; 0: first tile).")
    kept: list[float] = Field(default=[], description="alpha × l_before: the old sum after the rescale.")
    added: list[float] = Field(default=[], description="e^(m̃ − m) × l_tilde: the tile's own sum at the new "
                               "max; kept + added = l.")
    why_s: list[list[str]] = Field(default=[], description="Each score's derivation (q·k / √d_k written out).")
    why_m: list[str] = Field(default=[], description="Each row's m after this tile, derived.")
    why_l: list[str] = Field(default=[], description="Each row's ℓ after this tile, derived.")
    why_o: list[list[str]] = Field(default=[], description="Each coordinate of each row's Z after this tile, "
                                   "derived.")
    story: str = Field(default="", description="What this tile does, one line under the drawing.")


class FlashSkip(WidgetData):
    rows: tuple[int, int] = Field(description="[start, stop) of the skipped tile's query rows.")
    cols: tuple[int, int] = Field(description="[start, stop) of its key rows: all after every query.")


class FlashData(WidgetData):
    tokens: list[str] = Field(description="The sentence's tokens (rows and columns of the map).")
    n: int = Field(description="Number of tokens.")
    block: int = Field(description="Block size in rows.")
    tiles: list[FlashTile] = Field(description="Every tile, in the order computed.")
    current: int = Field(description="Index of the current tile.")
    stage: FlashStage = Field(default="tile", description="What the view shows: the current tile swept and "
                              "its rows' m, ℓ and Z updated; the tile the causal mask skips; or every tile "
                              "done, Z beside the pipeline's Z.")
    final: bool = Field(description="Stage 'done': show the final comparison with exact attention.")
    exact: list[list[float | None]] = Field(description="Exact attention output Z, one row per token.")
    exact_why: list[list[str]] = Field(default=[], description="Each number of the exact Z, derived.")
    max_diff: float = Field(description="Largest |tiled − exact|.")
    row_diff: list[str] = Field(default=[], description="Each row's largest |tiled − exact|, formatted.")
    skipped: list[FlashSkip] = Field(default=[], description="Tiles the causal mask blocks entirely: "
                                     "never computed.")
    show_skip: bool = Field(default=False, description="Stage 'skip': this step is about the skipped tile(s).")
    skip_story: str = Field(default="", description="The line under the drawing at stage 'skip'.")
    done_story: str = Field(default="", description="The line under the drawing at stage 'done'.")


class FlashWidget(Widget):
    """FlashAttention's sweep: tiles move over the score map block by block (a tile above the
    diagonal is never computed), each row's running max m and sum ℓ drawn as bars that rescale by
    e^(m_before − m) when a larger score arrives before the tile's sum is added, the output row
    updated per tile, and at the end Z beside the pipeline's Z (views/flash.js)."""

    type: Literal["flash"]
    data: FlashData
