"""JSON API: decks, frames, the live attention chain, the cost model, health."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response

from attention_talk.engine.costs import PRESETS, costs
from attention_talk.playground import chain_json, run_chain
from attention_talk.web.compression import cached_json
from attention_talk.web.deps import DeckDep, SettingsDep, SlideId, StoreDep
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import (
    ERRORS,
    AttentionChain,
    AttentionRequest,
    Costs,
    DeckSummary,
    Health,
    Manifest,
    SlideFrames,
)

router = APIRouter(prefix="", default_response_class=JSON, responses=ERRORS)


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
