"""Errors as JSON that name the field and the reason; a talk page whose deck needs the missing model
as a page (``unavailable.html``)."""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError

from attention_talk.web.responses import JSON
from attention_talk.web.templates import templates

if TYPE_CHECKING:
    from fastapi.responses import HTMLResponse

    from attention_talk.web.deps import DeckPageUnavailable


def _field(loc: tuple, kind: str | None = None) -> str:
    if kind == "json_invalid":  # loc is ("body", <character offset>): the whole body is at fault
        return "body"
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or "body"


def _message(e: dict) -> str:
    msg = e.get("msg", "invalid")
    if e.get("type") == "json_invalid":
        reason = (e.get("ctx") or {}).get("error")
        msg = f"not valid JSON ({reason})" if reason else "not valid JSON"
    return f"{_field(tuple(e.get('loc', ())), e.get('type'))}: {msg}"


async def validation_error_handler(request: Request, exc: RequestValidationError) -> JSON:
    """422 with ``message`` ('d_model: must be …') and pydantic's ``detail`` list."""
    errors = exc.errors()
    messages = [_message(e) for e in errors]
    detail = [{"loc": list(e.get("loc", ())), "field": _field(tuple(e.get("loc", ())), e.get("type")),
               "msg": e.get("msg"), "type": e.get("type")} for e in errors]
    return JSON(status_code=422,
                          content=jsonable_encoder({"message": "; ".join(messages), "detail": detail}))


async def http_error_handler(request: Request, exc) -> JSON:
    """Every HTTP error as JSON with a readable ``message`` (404s, 405s, 422s from routes; a route's
    dict ``detail`` carries its own ``message`` and is sent whole as ``detail``)."""
    detail = exc.detail if exc.detail is not None else "error"
    if isinstance(detail, dict) and isinstance(detail.get("message"), str):  # a structured detail
        message = detail["message"]
    else:
        message = detail if isinstance(detail, str) else str(detail)
    if isinstance(exc.__cause__, UnicodeDecodeError):
        message = detail = f"body: not valid UTF-8 ({exc.__cause__.reason} at byte {exc.__cause__.start})"
    elif message == HTTPStatus(exc.status_code).phrase:  # Starlette's bare "Not Found" and the like
        message = {404: f"path: nothing at {request.url.path!r}",
                   405: f"method: {request.method} is not allowed on {request.url.path!r}"}.get(
            exc.status_code, f"{message}: {request.method} {request.url.path!r}")
    return JSON(status_code=exc.status_code, content={"message": message, "detail": detail},
                          headers=getattr(exc, "headers", None))


async def deck_page_unavailable(request: Request, exc: DeckPageUnavailable) -> HTMLResponse:
    """503 with the reason and how to install the model, as a page a visitor can read."""
    return templates.TemplateResponse(request, "unavailable.html", {"deck": exc.deck, "message": exc.message},
                                      status_code=503)
