"""Shared route inputs as Annotated dependency aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request

from attention_talk.deck import Deck
from attention_talk.web.settings import Settings
from attention_talk.web.store import Store


async def get_store(request: Request) -> Store:  # async: no thread hop
    return request.app.state.store


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
DeckId = Annotated[str, Path(max_length=80, description="Deck id, e.g. attention-step-by-step")]
SlideId = Annotated[str, Path(max_length=80, description="Slide id within the deck")]


async def get_deck(deck: DeckId, store: StoreDep) -> Deck:
    found = store.decks.get(deck)
    if found is None:
        raise HTTPException(status_code=404, detail=f"unknown deck {deck!r}; known decks: "
                                                    f"{', '.join(sorted(store.decks)) or 'none'}")
    return found


DeckDep = Annotated[Deck, Depends(get_deck)]
