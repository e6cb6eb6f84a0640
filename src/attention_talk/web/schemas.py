"""Response shapes, for the OpenAPI schema (and schemathesis, which checks every response
against it). Routes that send precomputed bytes name these in ``responses=`` instead of
validating their output again."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from attention_talk.frames.model import Frame

Matrix = list[list[float | None]]


class Error(BaseModel):
    """Every 4xx: ``message`` names the field and the reason."""

    message: str = Field(description="Which field, and why: 'heads: 3 heads do not divide d_model = 10'.")
    detail: Any = Field(description="The reason again, or pydantic's list of errors.")


class Health(BaseModel):
    status: str


class DeckSummary(BaseModel):
    id: str
    title: str
    subtitle: str
    slides: int
    steps: int


class SlideSummary(BaseModel):
    id: str
    number: int
    title: str
    template: str
    notes: str
    steps: int
    captions: list[str]


class Manifest(BaseModel):
    id: str
    title: str
    subtitle: str
    preset: str
    show_progress: bool
    steps: int
    slides: list[SlideSummary]


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
