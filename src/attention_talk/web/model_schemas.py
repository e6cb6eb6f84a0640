"""Request and response models of the real-model routes (``web/routes/model.py``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from attention_talk.web.schemas import StrictBody

MAX_TEXT_CHARS = 2000  # a cheap bound before tokenizing; the real limit is MAX_TOKENS tokens
MAX_WEIGHTS = 2**18  # attention weights per response: layers × heads × n² (about 2 MB of JSON)

Index = Annotated[int, Field(ge=0, le=1023)]


class ModelWork(BaseModel):
    """This worker's model runs: one at a time, a bounded queue (ATTENTION_TALK_MODEL_QUEUE)."""

    running: int = Field(description="Runs computing now (at most 1).")
    waiting: int = Field(description="Requests waiting for their turn now.")
    queue: int = Field(description="The most that may wait; one more gets 503 with Retry-After.")
    computed: int = Field(description="Requests answered since start-up.")
    not_started: int = Field(description="Requests whose client left while they waited or had gone when their "
                                         "turn came: not computed.")
    stopped: int = Field(description="Runs stopped between layers because their client went.")
    refused: int = Field(description="503s: the queue was full or the wait too long.")


class ModelInfo(BaseModel):
    """The model's sizes, read from its GGUF metadata."""

    name: str = Field(description="general.name from the GGUF file.")
    layers: int = Field(description="Transformer layers (blocks), numbered from 0.")
    heads: int = Field(description="Query heads per layer, numbered from 0.")
    kv_heads: int = Field(description="Key/value heads per layer (grouped-query attention when fewer).")
    d_model: int = Field(description="Width of the residual stream.")
    head_dim: int = Field(description="Width of each head's queries, keys and values.")
    rope_base: float = Field(description="RoPE base: pair i turns by position · base^(-2i/head_dim).")
    vocab: int = Field(description="Tokens in the vocabulary.")
    loaded: bool = Field(description="The weights are in memory (false while they load in the background).")
    work: ModelWork = Field(description="This worker's model runs and queue, since start-up.")


class ModelAttentionRequest(StrictBody):
    """A text for the real model, and which attention maps to return."""


    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARS,
                      description="The text; at most 64 tokens. No control characters but newline, tab, return.")
    layers: list[Index] | None = Field(default=None, min_length=1, max_length=1024,
                                       description="Layers to return, 0-based; null = all.")
    heads: list[Index] | None = Field(default=None, min_length=1, max_length=1024,
                                      description="Query heads to return in each layer, 0-based; null = all.")
    digits: int = Field(default=4, ge=1, le=8, description="Decimal places of every weight returned.")


class HeadWeights(BaseModel):
    head: int
    kv_head: int = Field(description="The key/value head this query head shares (head // (heads / kv_heads)).")
    weights: list[list[float]] = Field(description="n × n: row i = how token i attends to tokens 0 … i; "
                                                   "every weight above the diagonal is 0.")


class LayerWeights(BaseModel):
    layer: int
    heads: list[HeadWeights]


class NextTokenOut(BaseModel):
    token: str
    id: int
    p: float = Field(description="Probability of this token coming next.")


class ModelAttention(BaseModel):
    tokens: list[str] = Field(description="Each token's text (' old'); bytes cut mid-character as <0xF0>.")
    ids: list[int]
    layers: list[LayerWeights]
    next_tokens: list[NextTokenOut] = Field(description="The ten most likely next tokens, most likely first.")
