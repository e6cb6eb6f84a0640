"""HTML pages: the decks index, the talk player, offline API docs."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from attention_talk.deck import Deck
from attention_talk.frames.contract import STAGE_H, STAGE_W
from attention_talk.paths import data_dir
from attention_talk.web.deps import DeckId, StoreDep, get_deck
from attention_talk.web.keys import KEYS, PRESENTER_KEYS
from attention_talk.web.modules import first_paint_modules
from attention_talk.web.schemas import Manifest
from attention_talk.web.static import Static
from attention_talk.web.templates import Templates

if TYPE_CHECKING:
    from attention_talk.web.compression import Payload
    from attention_talk.web.store import Store

log = logging.getLogger(__name__)
router = APIRouter(default_response_class=HTMLResponse)
# The stage size, one source for the page (base.html) and the canvas viewBox (slides/matrix.html).
templates = Templates(data_dir("templates"), stage_w=STAGE_W, stage_h=STAGE_H, modulepreload=first_paint_modules)


class DeckPageUnavailable(Exception):
    """A talk page whose deck cannot be built now (it needs the model): answered as an HTML page."""

    def __init__(self, deck: str, message: str):
        super().__init__(message)
        self.deck, self.message = deck, message


async def page_deck(deck: DeckId, store: StoreDep) -> Deck:
    """The deck of a talk page; a 503 (the model is missing) becomes a readable page, not JSON."""
    try:
        return await get_deck(deck, store)
    except HTTPException as exc:
        if exc.status_code == 503:
            raise DeckPageUnavailable(deck, str(exc.detail)) from None
        raise


DeckDep = Annotated[Deck, Depends(page_deck)]


async def deck_page_unavailable(request: Request, exc: DeckPageUnavailable) -> HTMLResponse:
    """503 with the reason and how to install the model, as a page a visitor can read."""
    return templates.TemplateResponse(request, "unavailable.html", {"deck": exc.deck, "message": exc.message},
                                      status_code=503)


_KINDS: dict[str, tuple[str, ...]] = {}  # a frames payload's ETag → the widget kinds its frames draw


def first_kinds(store: Store, deck: Deck) -> tuple[str, ...]:
    """The widget kinds the deck's first slide draws, whose views the page preloads."""
    payload: Payload | None = store.frames.get((deck.id, deck.slides[0].id))
    if payload is None:
        return ()
    if payload.etag not in _KINDS:
        frames = orjson.loads(payload.body)["frames"]
        _KINDS[payload.etag] = tuple(sorted({w["type"] for f in frames for w in f.get("widgets", [])}))
    return _KINDS[payload.etag]


def manifest(deck: Deck, notes: bool = True) -> dict:
    """The deck's manifest for the page's JSON data block: the same model as /api/decks/{deck};
    without ``notes``, the slides' speaker notes left out (the audience's pages never show them)."""
    data = Manifest.of(deck).model_dump(mode="json")
    if not notes:
        for slide in data["slides"]:
            del slide["notes"]
    return data


@router.get("/", include_in_schema=False)
def index(request: Request, store: StoreDep) -> HTMLResponse:
    """The decks index."""
    return templates.TemplateResponse(request, "index.html", {"decks": store.index()})


@router.get("/talk/{deck}", include_in_schema=False)
def talk(request: Request, deck: DeckDep, store: StoreDep) -> HTMLResponse:
    """The player: every slide's shell and every step's words, rendered on the server."""
    return templates.TemplateResponse(request, "talk.html", {
        "deck": deck, "manifest": manifest(deck, notes=False), "keys": KEYS, "kinds": first_kinds(store, deck),
        "frame_ancestors": request.app.state.settings.frame_ancestors.split()})


@router.get("/talk/{deck}/presenter", include_in_schema=False)
def presenter(request: Request, deck: DeckDep, store: StoreDep) -> HTMLResponse:
    """The speaker view: current and next step, notes, timer; follows the talk's window."""
    return templates.TemplateResponse(request, "presenter.html", {
        "deck": deck, "manifest": manifest(deck), "keys": PRESENTER_KEYS, "presenter": True,
        "kinds": first_kinds(store, deck)})


@router.get("/talk/{deck}/print", include_in_schema=False)
def print_view(request: Request, deck: DeckDep,
               notes: Annotated[bool, Query(description="Add notes and narration under each page.")] = False,
               ) -> HTMLResponse:
    """One 16:9 page per step, as the audience sees it; print it to get the PDF."""
    return templates.TemplateResponse(request, "print.html", {
        "deck": deck, "manifest": manifest(deck), "notes": notes})


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """OpenAPI docs, served from this origin (no CDN, no inline script)."""
    return templates.TemplateResponse(request, "docs.html", {})


def mount_docs_assets(app: FastAPI) -> None:
    """Swagger UI 5 (reads OpenAPI 3.1) from the files the fastapi-offline package ships; the
    package itself is never imported, only its static folder is served."""
    spec = importlib.util.find_spec("fastapi_offline")
    if spec is None or not spec.submodule_search_locations:  # pragma: no cover - a declared dependency
        log.warning("fastapi-offline is not installed: /docs has no Swagger UI")
        return
    folder = Path(next(iter(spec.submodule_search_locations))) / "static"
    app.mount("/docs-assets", Static(directory=folder), name="docs-assets")
