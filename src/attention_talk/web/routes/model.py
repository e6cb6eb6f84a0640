"""The real model's attention: SmolLM2-135M (or the GGUF in ATTENTION_TALK_MODEL_PATH), run by the
NumPy engine. The model loads in a background thread at start-up (this router's lifespan) and on
first use; without it, both routes answer 503 with how to install it, and the talk is unaffected.
The NumPy work runs in a worker thread, one run at a time, never on the event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import TYPE_CHECKING

import anyio
from anyio.lowlevel import RunVar
from fastapi import APIRouter, FastAPI, HTTPException, Request

from attention_talk.model import INSTALL_HINT, Loader, ModelFileError, ModelMissing, loader
from attention_talk.web.model_schemas import MAX_WEIGHTS, ModelAttention, ModelAttentionRequest, ModelInfo
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import ERRORS, Error
from attention_talk.web.startup import after_start, in_background

if TYPE_CHECKING:
    from attention_talk.model import Model

_RUNS: RunVar[anyio.CapacityLimiter] = RunVar("model_runs")
UNAVAILABLE = {503: {"model": Error, "description": f"No model: {INSTALL_HINT}"}}


@asynccontextmanager
async def preload(app: FastAPI) -> AsyncIterator[None]:
    """Once the server answers (``web/startup.py``), start loading the model in a background thread,
    then build the decks that need it (chapter 3)."""
    settings = app.state.settings

    def start() -> None:
        if loader(settings.model_path).start():  # then the decks drawn from the model, once it has loaded
            in_background(app.state.store.warm, "warm-model-decks")

    if not settings.model_preload:
        yield
        return
    async with after_start(start):
        yield


router = APIRouter(default_response_class=JSON, responses={**ERRORS, **UNAVAILABLE}, tags=["model"],
                   lifespan=preload)


def _loader(request: Request) -> Loader:
    return loader(request.app.state.settings.model_path)


def _runs() -> anyio.CapacityLimiter:
    """One model run at a time per event loop (each takes ~1 GB of memory bandwidth and both cores)."""
    try:
        return _RUNS.get()
    except LookupError:
        _RUNS.set(limiter := anyio.CapacityLimiter(1))
        return limiter


async def _off_loop(fn, *args):
    """``fn(*args)`` in a worker thread; a missing or unreadable model becomes a 503."""
    try:
        return await anyio.to_thread.run_sync(partial(fn, *args))
    except (ModelMissing, ModelFileError) as exc:
        raise HTTPException(status_code=503, detail=f"model: {exc}") from None


@router.get("/api/model", response_model=ModelInfo)
async def model_info(request: Request) -> dict:
    """The real model's sizes from its GGUF file, and whether its weights are loaded yet."""
    ld = _loader(request)
    c = await _off_loop(ld.config)
    return {"name": c.name, "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads, "d_model": c.d_model,
            "head_dim": c.head_dim, "rope_base": c.rope_base, "vocab": c.vocab, "loaded": ld.loaded}


def attention_json(model: Model, req: ModelAttentionRequest) -> dict:
    """Run the text and shape the maps asked for; ValueError ('layers: …') for a bad request."""
    import numpy as np  # with the model's runner: on the first request, not at start-up

    from attention_talk.model.runner import pick

    n = len(model.tokenize(req.text))
    layers, heads = pick("layers", req.layers, model.config.layers), pick("heads", req.heads, model.config.heads)
    cells = len(layers) * len(heads) * n * n
    if cells > MAX_WEIGHTS:
        raise ValueError(f"layers: {len(layers)} layers × {len(heads)} heads × {n}² tokens = {cells:,} weights, "
                         f"at most {MAX_WEIGHTS:,} per request; ask for fewer layers or heads, or a shorter text")
    run = model.run(req.text, layers=layers, heads=heads)

    def head(layer: int, h: int) -> dict:
        maps = run.head(layer, h)
        return {"head": h, "kv_head": maps.kv_head, "weights": np.round(maps.weights, req.digits)}

    return {"tokens": run.tokens, "ids": run.ids,
            "layers": [{"layer": layer, "heads": [head(layer, h) for h in heads]} for layer in layers],
            "next_tokens": [{"token": t.token, "id": t.id, "p": t.p} for t in run.next_tokens]}


@router.post("/api/model/attention", responses={200: {"model": ModelAttention, "description": "Successful Response"}})
async def model_attention(req: ModelAttentionRequest, request: Request) -> JSON:
    """Every attention map (weights) of the layers and heads asked for, and the likely next tokens.

    Numbering is 0-based as in the GGUF file; null layers or heads means all of them. At most 64
    tokens, and at most 262,144 weights (layers × heads × tokens²) per response: a 422 naming the
    field otherwise. Texts asked for recently are answered from a cache."""
    model = await _off_loop(_loader(request).model)
    try:
        payload = await anyio.to_thread.run_sync(partial(attention_json, model, req), limiter=_runs())
    except ValueError as exc:  # TokenizerError too: 'text: …', 'layers: …', 'heads: …'
        raise HTTPException(status_code=422, detail=str(exc)) from None
    return JSON(payload)


async def load_model(request: Request) -> Model:
    """The app's model, waiting while it loads (in a worker thread); 503 when there is none (the lab's routes)."""
    return await _off_loop(_loader(request).model)


model_runs = _runs  # the one-run-at-a-time limiter, shared with the lab's routes (web/routes/lab.py)
