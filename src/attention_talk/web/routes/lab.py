"""The lab (``GET /lab``): your own sentence through the illustrative chain (``POST /api/attention``)
or the real model, and the JSON it draws from: ``POST /api/model/lab`` (one head in full, every head
as a small map, the next tokens, in one answer per keystroke) and one cell's derivation,
``POST /api/model/derivation`` and ``POST /api/attention/derivation``. The numbers are the lab
package's (``lab/``); these routes validate, queue and answer."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from attention_talk import lab
from attention_talk.model import TokenizerError
from attention_talk.web.deps import SettingsDep
from attention_talk.web.lab_schemas import AttentionCellRequest, Cell, ModelCellRequest, ModelLab, ModelLabRequest
from attention_talk.web.model_work import UNAVAILABLE, run_model
from attention_talk.web.offload import off_loop
from attention_talk.web.responses import JSON
from attention_talk.web.schemas import BUSY, ERRORS
from attention_talk.web.templates import templates

router = APIRouter(default_response_class=JSON, responses=ERRORS)


def ok(model: type) -> dict:
    return {200: {"model": model, "description": "Successful Response"}}


@router.get("/lab", include_in_schema=False, response_class=HTMLResponse)
def lab_page(request: Request) -> HTMLResponse:
    """The lab page; its state lives in the query string (read by static/js/lab/state.js)."""
    return templates.TemplateResponse(request, "lab.html", {})


async def _answer(fn) -> JSON:
    """``fn()`` in a worker thread; a request that does not fit the sentence → 422."""
    try:
        return JSON(await off_loop(fn))
    except (lab.FieldError, TokenizerError) as exc:  # 'head: …', 'row: …', 'text: …'
        raise HTTPException(status_code=422, detail=str(exc)) from None


async def _model_answer(request: Request, fn) -> JSON:
    """``fn(model)`` through the model's queue (``run_model``); a request that does not fit the model
    or sentence → 422."""
    return await run_model(request, fn, refused=(lab.FieldError, TokenizerError))


@router.post("/api/model/lab", tags=["model"], responses={**ok(ModelLab), **BUSY, **UNAVAILABLE})
async def model_lab_view(req: ModelLabRequest, request: Request) -> JSON:
    """What the lab draws for the real model, in one answer: the tokens, one head's Q·Kᵀ, masked
    scores and weights in full, the next tokens, and every layer × head as a small map (``grid``
    cells a side, compact bytes: 30 × 9 maps of 16² cells are 69,120 bytes, against 1.1 million
    weights in full for 64 tokens). Layer and head are 0-based. One run at a time: when the queue is
    full or the wait too long, 503 with Retry-After."""
    return await _model_answer(request, partial(lab.model_lab, **req.model_dump()))


@router.post("/api/model/derivation", tags=["model"], responses={**ok(Cell), **BUSY, **UNAVAILABLE})
async def model_derivation(req: ModelCellRequest, request: Request) -> JSON:
    """How one cell of one head's map was computed (q·k term by term, the scale and mask, or the
    softmax of its row): parts that add up to the cell, as the talk's panels draw them."""
    return await _model_answer(request, partial(lab.model_cell, **req.model_dump()))


@router.post("/api/attention/derivation", tags=["engine"], responses={**ok(Cell), **BUSY})
async def attention_derivation(req: AttentionCellRequest, request: Request, settings: SettingsDep) -> JSON:
    """How one cell of one head of ``POST /api/attention``'s illustrative chain was computed (same
    settings, plus the 0-based head, the map and the cell)."""
    async with request.app.state.attention_gate.slot():
        return await _answer(partial(lab.chain_cell, req.token_list, **req.chain_settings(), head=req.head,
                                     tensor=req.tensor, row=req.row, col=req.col))
