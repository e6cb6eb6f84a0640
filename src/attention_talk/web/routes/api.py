"""JSON API: decks, frames, the illustrative chain (its maths: ``lab/``), the cost model (health:
``health.py``)."""

from __future__ import annotations

from typing import Annotated

import orjson
from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as FastPath
from fastapi.responses import Response

from attention_talk import lab
from attention_talk.engine.costs import PRESETS, costs
from attention_talk.lab.sizes import too_large
from attention_talk.web.compression import cached_json, compress_fast
from attention_talk.web.deps import DeckDep, SettingsDep, SlideId, StoreDep
from attention_talk.web.offload import off_loop
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import (
    BUSY,
    ERRORS,
    AttentionChain,
    AttentionRequest,
    Costs,
    DeckSummary,
    Manifest,
    SlideDerivations,
    SlideFrames,
    StepFrame,
)

router = APIRouter(prefix="", default_response_class=JSON, responses=ERRORS)


def ok(model: type) -> dict:
    """Document a 200 whose bytes the route builds itself (precomputed, or NumPy via orjson)."""
    return {200: {"model": model, "description": "Successful Response"}}


@router.get("/api/decks", tags=["decks"], response_model=list[DeckSummary])
def list_decks(store: StoreDep) -> list[dict]:
    """Every deck that loaded, with its slide and step counts."""
    return store.index()


@router.get("/api/decks/{deck}", tags=["decks"], responses=ok(Manifest))
async def deck_manifest(deck: DeckDep, store: StoreDep, request: Request, settings: SettingsDep) -> Response:
    """A deck's manifest: its slides, their ids, titles, notes and step counts."""
    return await cached_json(request, store.manifests[deck.id], settings.frames_max_age)


@router.get("/api/decks/{deck}/slides/{slide}/frames", tags=["decks"], responses=ok(SlideFrames))
async def slide_frames(deck: DeckDep, slide: SlideId, store: StoreDep, request: Request,
                 settings: SettingsDep) -> Response:
    """Every frame of one slide, precomputed by the engine (ETag; 304 when unchanged). ``slide`` is the
    slide's id from the manifest, not its number; inside, ``slide_number`` and ``step`` count from 1
    as a presenter does (the player's URL #/3/2), while tensor rows, columns and heads count from 0."""
    payload = store.frames.get((deck.id, slide))
    if payload is None:
        raise HTTPException(status_code=404, detail=f"unknown slide {slide!r} in deck {deck.id!r}")
    return await cached_json(request, payload, settings.frames_max_age)


@router.get("/api/decks/{deck}/slides/{slide}/frames/{step}", tags=["decks"], responses=ok(StepFrame))
async def step_frame(deck: DeckDep, slide: SlideId, step: Annotated[int, FastPath(ge=1, le=10_000)], store: StoreDep,
                     request: Request, settings: SettingsDep) -> Response:
    """One step's frame of a slide (``step`` counts from 1), the same as ``frames[step - 1]`` of the
    slide's frames: a step opened by its link is drawn from it before the rest of its slide arrives."""
    if (deck.id, slide) not in store.frames:
        raise HTTPException(status_code=404, detail=f"unknown slide {slide!r} in deck {deck.id!r}")
    payload = store.steps.get((deck.id, slide, step))
    if payload is None:
        raise HTTPException(status_code=404, detail=f"unknown step {step} of slide {slide!r} in deck {deck.id!r}")
    return await cached_json(request, payload, settings.frames_max_age)


@router.get("/api/decks/{deck}/slides/{slide}/derivations", tags=["decks"], responses=ok(SlideDerivations))
async def slide_derivations(deck: DeckDep, slide: SlideId, store: StoreDep, request: Request,
                      settings: SettingsDep) -> Response:
    """How every explained cell of one slide's frames was computed, term by term: the ``parts`` the
    frames leave out (a derivation panel fetches them when it first opens on the slide)."""
    payload = store.derivations.get((deck.id, slide))
    if payload is None:
        raise HTTPException(status_code=404, detail=f"unknown slide {slide!r} in deck {deck.id!r}")
    return await cached_json(request, payload, settings.frames_max_age)


@router.post("/api/attention", tags=["engine"], responses={**ok(AttentionChain), **BUSY})
async def attention(req: AttentionRequest, request: Request, settings: SettingsDep) -> Response:
    """The illustrative chain for your tokens (seeded random weights): per head (``per_head[i]``, whose
    ``head`` is i, 0-based as in /api/attention/derivation and the model routes) q, k, v, scores, masked,
    weights, output; then the concatenation, the final output and the costs. Only the tensors named in
    ``include`` come back (default: the weights), at most ATTENTION_TALK_MAX_RESPONSE_NUMBERS numbers,
    written as integers in units of 10^-digits unless ``numbers`` is "decimal".
    The work runs in a worker thread, at most ATTENTION_TALK_ATTENTION_CONCURRENCY at once; when
    every slot stays busy, 503 with Retry-After."""
    d_k = req.chain_settings()["d_k"]
    refuse_if_too_large(req, d_k, settings.max_response_numbers)
    async with request.app.state.attention_gate.slot():
        body, coding = await off_loop(attention_body, req, d_k, request.headers.get("accept-encoding", ""))
    return Response(body, media_type="application/json", headers={
        "Vary": "Accept-Encoding", **({"Content-Encoding": coding} if coding else {})})


def attention_body(req: AttentionRequest, d_k: int, accept_encoding: str) -> tuple[bytes, str | None]:
    """The response bytes, compressed as the client accepts (blocking: runs in a worker thread).
    orjson writes the NumPy arrays directly, far faster than validating them again."""
    lab.one_blas_thread_per_request()  # lab's NumPy modules load here, on the first request or with the warm
    chain = lab.illustrative_chain(req.token_list, **req.chain_settings())
    data = lab.chain_json(chain, d_model=req.d_model, heads=req.heads, d_k=d_k, digits=req.digits,
                          include=req.include, numbers=req.numbers)
    return compress_fast(orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY), accept_encoding)


def refuse_if_too_large(req: AttentionRequest, d_k: int, limit: int) -> None:
    """422 naming the fields to reduce when the response would hold more than ``limit`` numbers."""
    detail = too_large(len(req.token_list), d_model=req.d_model, heads=req.heads, d_k=d_k, include=req.include,
                       limit=limit)
    if detail is not None:
        raise HTTPException(status_code=422, detail=detail)


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
