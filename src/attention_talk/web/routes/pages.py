"""HTML pages: the decks index, the talk player, offline API docs."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from attention_talk.paths import data_dir
from attention_talk.web.deps import DeckDep, StoreDep
from attention_talk.web.keys import KEYS
from attention_talk.web.store import manifest

router = APIRouter(default_response_class=HTMLResponse)
templates = Jinja2Templates(directory=str(data_dir("templates")))


@router.get("/", include_in_schema=False)
def index(request: Request, store: StoreDep) -> HTMLResponse:
    """The decks index."""
    return templates.TemplateResponse(request, "index.html", {"decks": store.index()})


@router.get("/talk/{deck}", include_in_schema=False)
def talk(request: Request, deck: DeckDep) -> HTMLResponse:
    """The player: every slide's shell and every step's words, rendered on the server."""
    return templates.TemplateResponse(request, "talk.html", {
        "deck": deck, "manifest": manifest(deck), "keys": KEYS})


@router.get("/docs", include_in_schema=False)
def docs(request: Request) -> HTMLResponse:
    """OpenAPI docs, served from this origin (no CDN, no inline script)."""
    return templates.TemplateResponse(request, "docs.html", {})


def mount_docs_assets(app: FastAPI) -> None:
    """Swagger UI's files from the swagger-ui-bundle package, when it is installed."""
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # pragma: no cover - the dependency is declared; docs degrade gracefully
        return
    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")
