"""HTML pages: the decks index, the talk player, offline API docs."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import HTMLResponse

from attention_talk.web.deps import PageDeckDep, StoreDep
from attention_talk.web.keys import KEYS, PRESENTER_KEYS
from attention_talk.web.static import Static
from attention_talk.web.templates import first_kinds, manifest, templates

log = logging.getLogger(__name__)
router = APIRouter(default_response_class=HTMLResponse)


@router.get("/", include_in_schema=False)
def index(request: Request, store: StoreDep) -> HTMLResponse:
    """The decks index."""
    return templates.TemplateResponse(request, "index.html", {"decks": store.index()})


@router.get("/talk/{deck}", include_in_schema=False)
def talk(request: Request, deck: PageDeckDep, store: StoreDep) -> HTMLResponse:
    """The player: every slide's shell and every step's words, rendered on the server."""
    return templates.TemplateResponse(request, "talk.html", {
        "deck": deck, "manifest": manifest(deck, notes=False), "keys": KEYS, "kinds": first_kinds(store, deck),
        "frame_ancestors": request.app.state.settings.frame_ancestors.split()})


@router.get("/talk/{deck}/presenter", include_in_schema=False)
def presenter(request: Request, deck: PageDeckDep, store: StoreDep) -> HTMLResponse:
    """The speaker view: current and next step, notes, timer; follows the talk's window."""
    return templates.TemplateResponse(request, "presenter.html", {
        "deck": deck, "manifest": manifest(deck), "keys": PRESENTER_KEYS, "presenter": True,
        "kinds": first_kinds(store, deck)})


@router.get("/talk/{deck}/print", include_in_schema=False)
def print_view(request: Request, deck: PageDeckDep,
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
