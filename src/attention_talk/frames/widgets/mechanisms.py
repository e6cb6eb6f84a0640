"""Widget kinds that draw a mechanism as it happens (issue 30): softmax as a process, the mask
added to the scores, scaling by √d_k. Each is fed only with numbers the engine computed (by the
kit functions in ``frames/kit/mechanisms.py``); each view moves from the stage it drew last to the
stage it is given, so a deck plays the mechanism one key press per idea."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from attention_talk.frames.widgets.base import Widget, WidgetData

SoftmaxStage = Literal["scores", "shift", "exp", "sum", "divide"]
MaskStage = Literal["scores", "apart", "added"]
ScalingStage = Literal["raw", "scaled"]


class SoftmaxData(WidgetData):
    title: str = Field(description="Heading above the bars, e.g. whose row this is.")
    labels: list[str] = Field(description="One label per bar: the keys of the row.")
    scores: list[float | None] = Field(description="The row as the map holds it (scaled scores plus the mask); "
                                       "null where the mask blocks (−∞).")
    row_max: float = Field(description="The largest unmasked score of the row, subtracted from every score.")
    shifted: list[float | None] = Field(description="score − row_max per bar (≤ 0); null where masked.")
    exps: list[float] = Field(description="exp(score − row_max) per bar: in (0, 1], exactly 0 where masked.")
    total: float = Field(description="Σ exps: the height of the stacked bar before the division.")
    weights: list[float] = Field(description="exps / total: the engine's softmax of the row (sums to 1).")
    stage: SoftmaxStage = Field(description="What the view shows: the scores around zero, the row max "
                                "subtracted, e^x, their sum as one stacked bar, or each divided by it.")
    digits: int = Field(default=2, ge=0, le=4, description="Decimals of the printed values.")
    identity: str | None = Field(default=None, description="The continuity identity of the bars "
                                 "(data-identity): a tensor or part of the frame before or after with it travels "
                                 "there.")


class SoftmaxWidget(Widget):
    """Softmax of one row as a process: scores → minus the row max → e^x → their sum → divided by it,
    a stacked bar that is exactly 1 (views/softmax.js)."""

    type: Literal["softmax"]
    data: SoftmaxData


class MaskData(WidgetData):
    rows: list[str] = Field(description="Row labels: the queries.")
    cols: list[str] = Field(description="Column labels: the keys.")
    scores: list[list[float]] = Field(description="The scaled scores S·scale the mask is added to (n_q × n_k).")
    mask: list[list[float | None]] = Field(description="The additive mask M from the engine: 0 keeps, null is "
                                           "−∞ (blocks).")
    result: list[list[float | None]] = Field(description="scores + M; null where M blocks (−∞).")
    stage: MaskStage = Field(description="The scores alone; M beside them; M slid onto them and added.")
    scores_label: str = Field(description="Label of the scores, e.g. 'S / √128'.")
    mask_label: str = Field(description="Label of the mask, e.g. 'M: causal'.")
    result_label: str = Field(description="Label of the sum, e.g. 'S / √128 + M'.")
    digits: int = Field(default=2, ge=0, le=4, description="Decimals of the printed scores.")
    identity: str | None = Field(default=None, description="The continuity identity of the scores matrix "
                                 "(data-identity): a tensor or part of the frame before or after with it travels "
                                 "there.")


class MaskWidget(Widget):
    """The mask as a matrix M of 0 and −∞ that slides onto the scaled scores and is added; the cells
    it blocks change look as it lands (views/mask.js)."""

    type: Literal["mask"]
    data: MaskData


class ScalingData(WidgetData):
    edges: list[float] = Field(description="Bin edges shared by both histograms (one more than the counts).")
    raw_counts: list[int] = Field(description="Scores Q·Kᵀ per bin.")
    scaled_counts: list[int] = Field(description="Scaled scores Q·Kᵀ / √d_k per bin, on the same edges.")
    raw_label: str = Field(description="What the first histogram counts, with its spread.")
    scaled_label: str = Field(description="What the second histogram counts, with its spread.")
    ticks: list[float] = Field(description="x values labelled on the shared axis.")
    divisor: float = Field(description="√d_k: the scores are divided by it.")
    labels: list[str] = Field(description="The keys of the row whose weights are shown.")
    raw_weights: list[float] = Field(description="Softmax of the row's raw scores (plus the mask).")
    scaled_weights: list[float] = Field(description="Softmax of the row's scaled scores (plus the mask).")
    masked: list[bool] = Field(description="Keys the mask blocks in this row (their weight is exactly 0).")
    row_title: str = Field(description="Heading of the row's weights.")
    stage: ScalingStage = Field(description="Before the division (raw) or after it (scaled).")


class ScalingWidget(Widget):
    """Scaling by √d_k: the spread of the scores shrinks on one histogram axis and one row's softmax
    flattens (views/scaling.js)."""

    type: Literal["scaling"]
    data: ScalingData
