"""The Jinja templates of the HTML pages, made on first use: jinja2 is not imported before the
server answers, and ``web/startup.py`` makes them (and compiles every page) in the background.

``templates`` is the app's one instance, shared by every router that renders a page (pages, lab,
rooms); ``manifest`` and ``first_kinds`` are what every talk page (the player, the speaker view, a
room's follower and remote) passes it."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from attention_talk.frames.contract import STAGE_H, STAGE_W
from attention_talk.paths import data_dir
from attention_talk.web.modules import first_paint_modules, first_views
from attention_talk.web.schemas import Manifest

if TYPE_CHECKING:
    from fastapi.templating import Jinja2Templates
    from jinja2 import Environment
    from starlette.templating import _TemplateResponse

    from attention_talk.deck import Deck
    from attention_talk.web.compression import Payload
    from attention_talk.web.store import Store


class Templates:
    """``Jinja2Templates(directory)`` with ``globals`` in its environment, made on first use."""

    def __init__(self, directory: Path, **globals: Any) -> None:
        self.directory, self.globals = directory, globals
        self._made: Jinja2Templates | None = None
        self._lock = threading.Lock()

    @property
    def jinja(self) -> Jinja2Templates:
        if self._made is None:
            with self._lock:
                if self._made is None:
                    from fastapi.templating import Jinja2Templates

                    made = Jinja2Templates(directory=str(self.directory))
                    made.env.globals.update(self.globals)
                    self._made = made
        return self._made

    @property
    def env(self) -> Environment:
        return self.jinja.env

    def TemplateResponse(self, *args: Any, **kwargs: Any) -> _TemplateResponse:
        return self.jinja.TemplateResponse(*args, **kwargs)

    def compile_pages(self) -> None:
        """Compile every page template now (Jinja compiles each on its first use)."""
        for path in sorted(self.directory.glob("*.html")):
            self.env.get_template(path.name)


# The stage size, one source for the page (base.html) and the canvas viewBox (slides/matrix.html).
templates = Templates(data_dir("templates"), stage_w=STAGE_W, stage_h=STAGE_H, modulepreload=first_paint_modules,
                      first_views=first_views)

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
