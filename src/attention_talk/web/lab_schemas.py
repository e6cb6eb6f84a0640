"""Request and response models of the lab's routes (``web/routes/lab.py``): the real model's view for
one sentence (one head in full, every head as a small map) and one cell's derivation, for either
source. Cross-field checks (a head the model lacks, a row past the last token) are made by the lab's
maths (``lab/``, ``FieldError``), which the routes answer with a 422 naming the field."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from attention_talk.frames.contract import Derivation
from attention_talk.web.model_schemas import MAX_TEXT_CHARS, NextTokenOut
from attention_talk.web.schemas import MAX_TOKENS, AttentionRequest, Matrix, StrictBody

MAX_GRID = 32  # cells per side of each small map of the overview

MapName = Literal["scores", "masked", "weights"]


def _text() -> object:
    return Field(min_length=1, max_length=MAX_TEXT_CHARS,
                 description="The text; at most 64 tokens. No control characters but newline, tab, return.")


class ModelLabRequest(StrictBody):
    """A sentence for the real model: one head in full, and (optionally) every head as a small map."""

    text: str = _text()
    layer: int = Field(default=0, ge=0, le=1023, description="The layer of the head shown in full, 0-based.")
    head: int = Field(default=0, ge=0, le=1023, description="The query head shown in full, 0-based.")
    digits: int = Field(default=4, ge=1, le=8, description="Decimal places of every number of the full head.")
    grid: int = Field(default=16, ge=0, le=MAX_GRID, description=(
        "Cells per side of each small map of the overview (every layer × every head): a map of n tokens "
        "is cut into min(grid, n) blocks of rows and of columns, each cell the largest weight of its "
        "block. 0 leaves the overview out."))
    next_temperature: float = Field(default=1.0, gt=0, le=10, allow_inf_nan=False, description=(
        "The output softmax's temperature for next_tokens: softmax(logits / T) over the vocabulary (1: the "
        "model's own). Not the attention's temperature."))


class ModelCellRequest(StrictBody):
    """One cell of one head's map, for its derivation."""

    text: str = _text()
    layer: int = Field(ge=0, le=1023, description="Layer, 0-based.")
    head: int = Field(ge=0, le=1023, description="Query head, 0-based.")
    tensor: MapName = Field(description="scores (Q·Kᵀ), masked (scaled, + mask) or weights (softmax).")
    row: int = Field(ge=0, le=MAX_TOKENS - 1, description="The query token, 0-based.")
    col: int = Field(ge=0, le=MAX_TOKENS - 1, description="The key token, 0-based.")


class AttentionCellRequest(AttentionRequest):
    """POST /api/attention's settings, and one cell of one head's map, for its derivation."""

    head: int = Field(default=0, ge=0, le=63, description="The head, 0-based (per_head[head] of /api/attention).")
    tensor: MapName = Field(description="scores (Q·Kᵀ), masked (scaled, + mask) or weights (softmax).")
    row: int = Field(ge=0, le=MAX_TOKENS - 1, description="The query token, 0-based.")
    col: int = Field(ge=0, le=MAX_TOKENS - 1, description="The key token, 0-based.")


class Grid(BaseModel):
    """Every layer × head of the model as a small map, in one compact block of bytes."""

    cells: int = Field(description="Cells per side of each small map: min(grid, n).")
    starts: list[int] = Field(description="The first token of each block of rows (and of columns).")
    layers: int
    heads: int
    encoding: Literal["uint8-base64"] = Field(description=(
        "data is base64 of layers × heads × cells × cells bytes (layer, then head, then row, then column), "
        "each byte round(255 × the block's largest weight)."))
    data: str


class ModelLab(BaseModel):
    """What the lab draws for the real model: one head's three maps, the next tokens, the overview."""

    tokens: list[str]
    ids: list[int]
    layers: int = Field(description="The model's layers.")
    heads: int = Field(description="Query heads per layer.")
    kv_heads: int = Field(description="Key/value heads per layer: query head h reads kv_head h // (heads / kv_heads).")
    head_dim: int
    layer: int
    head: int
    kv_head: int = Field(description="The key/value head the shown query head shares.")
    scale: float = Field(description="1/√head_dim: masked = scores × scale + mask.")
    scores: Matrix = Field(description="Q·Kᵀ of the head (after RoPE), n × n.")
    masked: Matrix = Field(description="scores × scale with the causal mask: null (−∞) above the diagonal.")
    weights: Matrix = Field(description="softmax of each masked row: rows sum to 1.")
    next_tokens: list[NextTokenOut]
    next_temperature: float = Field(description="The output softmax's temperature next_tokens were computed at.")
    grid: Grid | None = Field(description="Every head as a small map; null when grid is 0.")


class Cell(BaseModel):
    """One cell's derivation: the same parts the talk's panels draw (they add up to the cell)."""

    tensor: MapName
    label: str = Field(description="The map's name as the lab shows it.")
    derivation: Derivation = Field(description="kind, formula and exactly one cell.")
