"""Shared route inputs as Annotated dependency aliases: the settings, the store, a deck (for the
JSON API, and for a page, whose 503 is answered as a page a visitor can read)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request

from attention_talk.deck import Deck
from attention_talk.web.offload import off_loop
from attention_talk.web.settings import Settings
from attention_talk.web.store import DeckUnavailable, Store


async def get_store(request: Request) -> Store:  # async: no thread hop once the decks are read
    store = request.app.state.store
    if not store.is_read:  # the first requests after start-up: read the decks off the event loop
        await off_loop(store.read)
    return store


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
DeckId = Annotated[str, Path(max_length=80, description="Deck id, e.g. attention-step-by-step")]
SlideId = Annotated[str, Path(max_length=80, description="Slide id within the deck")]


async def get_deck(deck: DeckId, store: StoreDep) -> Deck:
    """The deck; one that needs the model is built on its first request, in a worker thread (503
    with the reason and the install hint when the model is missing)."""
    found = store.decks.get(deck)
    if found is not None:
        return found
    if deck in store.pending:
        try:
            return await off_loop(store.ensure, deck)
        except DeckUnavailable as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from None
    known = sorted([*store.decks, *store.pending])
    raise HTTPException(status_code=404, detail=f"unknown deck {deck!r}; known decks: {', '.join(known) or 'none'}")


DeckDep = Annotated[Deck, Depends(get_deck)]


class DeckPageUnavailable(Exception):
    """A talk page whose deck cannot be built now (it needs the model): answered as an HTML page
    (``errors.deck_page_unavailable``)."""

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


PageDeckDep = Annotated[Deck, Depends(page_deck)]
