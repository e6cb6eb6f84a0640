"""Errors as JSON that name the field and the reason."""

from __future__ import annotations

from fastapi import Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError

from attention_talk.web.responses import JSON


def _field(loc: tuple) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path")]
    return ".".join(parts) or "body"


async def validation_error_handler(request: Request, exc: RequestValidationError) -> JSON:
    """422 with ``message`` ('d_model: must be …') and pydantic's ``detail`` list."""
    errors = exc.errors()
    messages = [f"{_field(tuple(e.get('loc', ())))}: {e.get('msg', 'invalid')}" for e in errors]
    detail = [{"loc": list(e.get("loc", ())), "field": _field(tuple(e.get("loc", ()))),
               "msg": e.get("msg"), "type": e.get("type")} for e in errors]
    return JSON(status_code=422,
                          content=jsonable_encoder({"message": "; ".join(messages), "detail": detail}))


async def http_error_handler(request: Request, exc) -> JSON:
    """Every HTTP error as JSON with a readable ``message`` (404s, 405s, 422s from routes)."""
    detail = exc.detail if exc.detail is not None else "error"
    message = detail if isinstance(detail, str) else str(detail)
    return JSON(status_code=exc.status_code, content={"message": message, "detail": detail},
                          headers=getattr(exc, "headers", None))
