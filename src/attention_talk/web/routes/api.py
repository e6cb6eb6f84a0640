"""JSON API: decks, frames, the live attention chain, the cost model, health."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from attention_talk.engine.costs import PRESETS, costs
from attention_talk.playground import chain_json, run_chain
from attention_talk.web.deps import DeckDep, SettingsDep, SlideId, StoreDep
from attention_talk.web.responses import JSON, cached_json
from attention_talk.web.schemas import (
    ERRORS,
    AttentionChain,
    Costs,
    DeckSummary,
    Health,
    Manifest,
    SlideFrames,
)

router = APIRouter(prefix="", default_response_class=JSON, responses=ERRORS)

MAX_TOKENS = 64
MAX_D_MODEL = 512


def ok(model: type) -> dict:
    """Document a 200 whose bytes the route builds itself (precomputed, or NumPy via orjson)."""
    return {200: {"model": model, "description": "Successful Response"}}


@router.get("/healthz", tags=["meta"], response_model=Health)
def healthz() -> dict:
    """Liveness: the app is up and its frames are loaded."""
    return {"status": "ok"}


@router.get("/api/decks", tags=["decks"], response_model=list[DeckSummary])
def list_decks(store: StoreDep) -> list[dict]:
    """Every deck that loaded, with its slide and step counts."""
    return store.index()


@router.get("/api/decks/{deck}", tags=["decks"], responses=ok(Manifest))
def deck_manifest(deck: DeckDep, store: StoreDep, request: Request, settings: SettingsDep) -> Response:
    """A deck's manifest: its slides, their ids, titles, notes and step counts."""
    return cached_json(request, store.manifests[deck.id], settings.frames_max_age)


@router.get("/api/decks/{deck}/slides/{slide}/frames", tags=["decks"], responses=ok(SlideFrames))
def slide_frames(deck: DeckDep, slide: SlideId, store: StoreDep, request: Request,
                 settings: SettingsDep) -> Response:
    """Every frame of one slide, precomputed by the engine (ETag; 304 when unchanged)."""
    payload = store.frames.get((deck.id, slide))
    if payload is None:
        raise HTTPException(status_code=404, detail=f"unknown slide {slide!r} in deck {deck.id!r}")
    return cached_json(request, payload, settings.frames_max_age)


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


@router.post("/api/attention", tags=["engine"], responses=ok(AttentionChain))
def attention(req: AttentionRequest) -> JSON:
    """The whole chain for your tokens: per head q, k, v, scores, masked, weights, output; then
    the concatenation, the final output and the costs."""
    d_k = req.d_k or req.d_model // req.heads
    chain = run_chain(req.token_list, d_model=req.d_model, heads=req.heads, d_k=d_k, causal=req.causal,
                      temperature=req.temperature, seed=req.seed)
    # Sent as is: orjson writes the NumPy arrays directly, far faster than validating them again.
    return JSON(chain_json(chain, d_model=req.d_model, heads=req.heads, d_k=d_k, digits=req.digits))


@router.get("/api/costs", tags=["engine"], response_model=Costs)
def cost_model(
    preset: Annotated[str, Query(description=f"One of: {', '.join(PRESETS)}")] = "deepseek-v3.2",
    n: Annotated[int, Query(ge=1, le=10_000_000, description="Context length in tokens.")] = 4096,
) -> dict:
    """Weights, FLOPs per token, KV-cache bytes and attention-map size, each with its formula."""
    if preset not in PRESETS:
        raise HTTPException(status_code=422,
                            detail=f"preset: unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    return {"preset": preset, "n": n, "counts": costs(preset).summary(n)}
