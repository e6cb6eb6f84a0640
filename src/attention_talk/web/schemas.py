"""Request and response models, for validation and the OpenAPI schema (and schemathesis, which
checks every response against it). Routes that send precomputed bytes name these in
``responses=`` instead of validating their output again; the store builds those bytes from these
same models (``Manifest.of``, ``DeckSummary.of``, ``SlideFrames``), so the schema and the bytes
cannot drift."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from attention_talk.frames.model import Frame

if TYPE_CHECKING:
    from attention_talk.deck import Deck

Matrix = list[list[float | None]]
MAX_TOKENS = 64
MAX_D_MODEL = 512


# ---------------------------------------------------------------------------------------------
# requests


class AttentionRequest(BaseModel):
    """Tokens and settings for one multi-head attention layer with random projections."""

    model_config = ConfigDict(extra="forbid")

    tokens: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None, min_length=1, max_length=MAX_TOKENS, description="The tokens, in order.")
    text: str | None = Field(default=None, min_length=1, max_length=4000,
                             description="Alternative to tokens: text split on spaces.")
    d_model: int = Field(default=16, ge=1, le=MAX_D_MODEL, description="Model width d.")
    heads: int = Field(default=2, ge=1, le=64, description="Number of heads h.")
    d_k: int | None = Field(default=None, ge=1, le=MAX_D_MODEL,
                            description="Per-head width; defaults to d_model / heads.")
    causal: bool = Field(default=True, description="Apply the causal mask.")
    temperature: float = Field(default=1.0, gt=0, le=100, description="Softmax temperature.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Seed for the random weights.")
    digits: int = Field(default=6, ge=1, le=15, description="Decimal places of every number returned "
                        "(6 keeps weights' row sums within 1e-5 of 1 and the response small).")

    @field_validator("temperature")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> AttentionRequest:
        if (self.tokens is None) == (self.text is None):
            raise ValueError("give exactly one of tokens or text")
        if self.text is not None:
            words = self.text.split()
            if not words:
                raise ValueError("text: must contain at least one token")
            if len(words) > MAX_TOKENS:
                raise ValueError(f"text: at most {MAX_TOKENS} tokens, got {len(words)}")
            if max(len(w) for w in words) > 40:
                raise ValueError("text: each token must be at most 40 characters")
        if self.d_k is None and self.d_model % self.heads:
            raise ValueError(f"heads: {self.heads} heads do not divide d_model = {self.d_model}; "
                             "choose a divisor or give d_k")
        if self.d_k is not None and self.heads * self.d_k > 4096:
            raise ValueError(f"d_k: heads × d_k must be at most 4096, got {self.heads * self.d_k}")
        return self

    @property
    def token_list(self) -> list[str]:
        return self.tokens if self.tokens is not None else (self.text or "").split()


# ---------------------------------------------------------------------------------------------
# responses


class Error(BaseModel):
    """Every 4xx: ``message`` names the field and the reason."""

    message: str = Field(description="Which field, and why: 'heads: 3 heads do not divide d_model = 10'.")
    detail: Any = Field(description="The reason again, or pydantic's list of errors.")


class Health(BaseModel):
    status: str


class DeckSummary(BaseModel):  # one row of the decks index (/api/decks and the index page)
    id: str
    title: str
    subtitle: str
    slides: int
    steps: int

    @classmethod
    def of(cls, deck: Deck) -> DeckSummary:
        return cls(id=deck.id, title=deck.title, subtitle=deck.subtitle, slides=len(deck.slides),
                   steps=deck.step_count)


class SlideSummary(BaseModel):
    id: str
    number: int
    title: str
    template: str
    notes: str
    steps: int
    captions: list[str]


class Manifest(BaseModel):  # what the player needs to know about a deck: the talk page's JSON twin
    id: str
    title: str
    subtitle: str
    preset: str
    show_progress: bool
    steps: int
    slides: list[SlideSummary]

    @classmethod
    def of(cls, deck: Deck) -> Manifest:
        return cls(id=deck.id, title=deck.title, subtitle=deck.subtitle, preset=deck.preset,
                   show_progress=deck.show_progress, steps=deck.step_count, slides=[
                       SlideSummary(id=s.id, number=i + 1, title=s.title, template=s.template, notes=s.notes,
                                    steps=len(s.steps), captions=[st.caption for st in s.steps])
                       for i, s in enumerate(deck.slides)])


class SlideFrames(BaseModel):
    deck: str
    slide: str
    frames: list[Frame]


class Count(BaseModel):
    """A number with the formula that gives it and where that formula comes from."""

    value: int | float
    formula: str
    source: str
    unit: str = ""
    label: str = ""


class Costs(BaseModel):
    preset: str
    n: int
    counts: dict[str, Count]


class Head(BaseModel):
    head: int
    q: Matrix
    k: Matrix
    v: Matrix
    scores: Matrix
    masked: Matrix = Field(description="null where the causal mask put −∞.")
    weights: Matrix
    output: Matrix


class AttentionChain(BaseModel):
    tokens: list[str]
    d_model: int
    heads: int
    d_k: int
    digits: int
    scale: float
    per_head: list[Head]
    concat: Matrix
    output: Matrix
    costs: dict[str, Count]


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error, "description": why} for code, why in [
        (400, "The body is not UTF-8 or cannot be read"),
        (404, "Unknown deck, slide or path"),
        (413, "The body is larger than ATTENTION_TALK_MAX_BODY_BYTES"),
        (422, "A field is missing, of the wrong type or out of range"),
    ]
}
