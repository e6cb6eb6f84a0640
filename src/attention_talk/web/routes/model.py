"""The real model's attention: SmolLM2-135M (or the GGUF in ATTENTION_TALK_MODEL_PATH), run by the
NumPy engine. The model loads in a background thread at start-up (this router's lifespan) and on
first use; without it, both routes answer 503 with how to install it, and the talk is unaffected.

Every model route (here and the lab's, ``web/routes/lab.py``) runs its work through
``web/model_work.py``'s ``run_model``: one run at a time per worker behind a bounded queue, never on
the event loop, stopped for a client that has gone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING

from fastapi import APIRouter, FastAPI, Request

from attention_talk import lab
from attention_talk.web.model_schemas import MAX_WEIGHTS, ModelAttention, ModelAttentionRequest, ModelInfo
from attention_talk.web.model_work import UNAVAILABLE, model_call, model_loader, model_work, run_model
from attention_talk.web.offload import in_background
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import BUSY, ERRORS
from attention_talk.web.startup import after_start

if TYPE_CHECKING:
    pass


@asynccontextmanager
async def preload(app: FastAPI) -> AsyncIterator[None]:
    """Once the server answers (``web/startup.py``), start loading the model in a background thread,
    then build the decks that need it (chapter 3)."""

    def start() -> None:
        if model_loader(app).start():  # then the decks drawn from the model, once it has loaded
            in_background(app.state.store.warm, "warm-model-decks")

    if not app.state.settings.model_preload:
        yield
        return
    async with after_start(start):
        yield


router = APIRouter(default_response_class=JSON, responses={**ERRORS, **UNAVAILABLE}, tags=["model"],
                   lifespan=preload)


@router.get("/api/model", response_model=ModelInfo)
async def model_info(request: Request) -> dict:
    """The real model's sizes from its GGUF file, whether its weights are loaded yet, and this worker's
    model work (runs, queue, requests not started or stopped because their client had gone)."""
    ld = model_loader(request.app)
    c = await model_call(ld.config)
    return {"name": c.name, "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads, "d_model": c.d_model,
            "head_dim": c.head_dim, "rope_base": c.rope_base, "vocab": c.vocab, "loaded": ld.loaded,
            "work": model_work(request.app).counts()}


@router.post("/api/model/attention", responses={200: {"model": ModelAttention, "description": "Successful Response"},
                                                **BUSY, **UNAVAILABLE})
async def model_attention(req: ModelAttentionRequest, request: Request) -> JSON:
    """Every attention map (weights) of the layers and heads asked for, and the likely next tokens.

    Numbering is 0-based as in the GGUF file; null layers or heads means all of them. At most 64
    tokens, and at most 262,144 weights (layers × heads × tokens²) per response: a 422 naming the
    field otherwise. Texts asked for recently are answered from a cache. One run at a time: when the
    queue is full or the wait too long, 503 with Retry-After."""
    maps = partial(lab.model_maps, **req.model_dump(), max_weights=MAX_WEIGHTS)
    return await run_model(request, maps)  # ValueError, TokenizerError too: 'text: …', 'layers: …'
