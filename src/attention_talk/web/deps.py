"""Shared route inputs as Annotated dependency aliases."""

from __future__ import annotations

from typing import Annotated

import anyio
from fastapi import Depends, HTTPException, Path, Request

from attention_talk.deck import Deck
from attention_talk.web.settings import Settings
from attention_talk.web.store import DeckUnavailable, Store


async def get_store(request: Request) -> Store:  # async: no thread hop once the decks are read
    store = request.app.state.store
    if not store.is_read:  # the first requests after start-up: read the decks off the event loop
        await anyio.to_thread.run_sync(store.read)
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
            return await anyio.to_thread.run_sync(store.ensure, deck)
        except DeckUnavailable as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from None
    known = sorted([*store.decks, *store.pending])
    raise HTTPException(status_code=404, detail=f"unknown deck {deck!r}; known decks: {', '.join(known) or 'none'}")


DeckDep = Annotated[Deck, Depends(get_deck)]
