"""``GET /healthz``: liveness, in a router of its own, included first.

FastAPI prepares an included router's routes (their parameters and response models) on the first
request that reaches it; alone here, the health check's first answer does not wait for every API
route to be prepared (``web/startup.py`` prepares them in the background)."""

from __future__ import annotations

from fastapi import APIRouter

from attention_talk.web.responses import JSON
from attention_talk.web.schemas import ERRORS, Health

router = APIRouter(default_response_class=JSON, responses=ERRORS)


@router.get("/healthz", tags=["meta"], response_model=Health)
async def healthz() -> dict:
    """Liveness: the server answers. The decks are read, and their frames built, in the background
    from start-up on and on first use (``web/store.py``)."""
    return {"status": "ok"}
