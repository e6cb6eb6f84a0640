"""The app factory: create the app, add middleware, include routers. Nothing else."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from attention_talk import __version__
from attention_talk.paths import data_dir
from attention_talk.rooms import make_hub
from attention_talk.web.compression import Compress
from attention_talk.web.deps import DeckPageUnavailable
from attention_talk.web.errors import deck_page_unavailable, http_error_handler, validation_error_handler
from attention_talk.web.head import HeadAsGet
from attention_talk.web.limits import BodyLimit, Gate, HeaderLimit
from attention_talk.web.page_cache import PageValidators
from attention_talk.web.redirects import RelativeRedirects
from attention_talk.web.routes import api, health, lab, pages, rooms
from attention_talk.web.routes.model import router as model_router
from attention_talk.web.security import SecurityHeaders
from attention_talk.web.settings import Settings
from attention_talk.web.startup import lifespan
from attention_talk.web.static import Static
from attention_talk.web.store import Store


def create_app(settings: Settings | None = None, store: Store | None = None) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(title="attention-talk", version=__version__, docs_url=None, redoc_url=None,
                  lifespan=lifespan,  # routes prepared, decks read and built once the server answers
                  redirect_slashes=False,  # RelativeRedirects does it without trusting the Host header
                  description="An animated talk on transformer attention; every number computed "
                              "by a NumPy engine. Frames, decks, costs, the illustrative chain and the real model.")
    app.state.settings = settings
    app.state.store = store or Store.load(settings.decks_dir, settings.model_path, eager=False,
                                               model_cache_dir=settings.model_cache_dir)
    app.state.attention_gate = Gate(settings.attention_concurrency, settings.attention_queue_timeout,
                                    "POST /api/attention")
    app.state.rooms = make_hub(settings.redis_url, settings.room_idle_timeout, settings.max_rooms,
                               settings.room_claim_timeout)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(DeckPageUnavailable, deck_page_unavailable)
    # Outermost last: security headers on everything, the header limit, HEAD as GET, redirects,
    # compression, the body limit, the pages' ETags (of their uncompressed bytes).
    app.add_middleware(PageValidators)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes, timeout=settings.body_timeout)
    app.add_middleware(Compress)
    app.add_middleware(RelativeRedirects)
    app.add_middleware(HeadAsGet)
    app.add_middleware(HeaderLimit, max_bytes=settings.max_header_bytes)
    app.add_middleware(SecurityHeaders, frame_ancestors=settings.frame_ancestors)
    app.mount("/static", Static(directory=data_dir("static"), strip=True), name="static")
    pages.mount_docs_assets(app)
    app.include_router(health.router)  # first: its first answer prepares no other route
    app.include_router(api.router)
    app.include_router(model_router)  # the real model (/api/model …): its own router and lifespan
    app.include_router(lab.router)  # the lab page and its JSON (/lab, /api/model/lab, …/derivation)
    app.include_router(rooms.router)  # live rooms: its lifespan starts and stops the hub
    app.include_router(pages.router)
    return app
