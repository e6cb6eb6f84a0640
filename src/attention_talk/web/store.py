"""Every deck and every frame, computed once at start-up and kept as ready-to-send JSON payloads
(built from the response models in schemas.py; compressed and ETagged by compression.py)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from attention_talk.deck import Deck, DeckError
from attention_talk.frames import build_deck_frames, load_decks
from attention_talk.web.compression import Payload
from attention_talk.web.schemas import DeckSummary, Manifest, SlideFrames

log = logging.getLogger(__name__)


class DecksFolderMissing(FileNotFoundError):
    """The configured decks folder does not exist."""


@dataclass
class Store:
    decks: dict[str, Deck] = field(default_factory=dict)
    errors: list[DeckError] = field(default_factory=list)
    manifests: dict[str, Payload] = field(default_factory=dict)
    frames: dict[tuple[str, str], Payload] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path) -> Store:
        """Every deck in ``folder`` with its frames. A bad deck is logged and skipped; a folder that
        does not exist is an error (the server must not start with no talk and no word why)."""
        if not folder.is_dir():
            raise DecksFolderMissing(f"the decks folder {str(folder)!r} does not exist "
                                     "(set ATTENTION_TALK_DECKS_DIR to a folder of deck YAML files)")
        decks, errors = load_decks(folder)
        store = cls(errors=errors)
        for deck_id, deck in decks.items():
            try:
                frames = build_deck_frames(deck)
            except DeckError as exc:  # a deck whose frames fail must not stop the others
                log.error("skipping deck %s: %s", deck_id, "; ".join(exc.errors))
                store.errors.append(DeckError(folder / f"{deck_id}.yaml", exc.errors))
                continue
            store.add(deck, frames)
        log.info("loaded %d deck(s) from %s%s", len(store.decks), folder,
                 f"; {len(store.errors)} skipped (see above)" if store.errors else "")
        if not store.decks:
            log.warning("no deck loaded from %s: the index will be empty", folder)
        return store

    def add(self, deck: Deck, frames: dict) -> None:
        """Keep ``deck`` with its manifest and every slide's frames, each as a ready payload."""
        self.decks[deck.id] = deck
        self.manifests[deck.id] = Payload.of(Manifest.of(deck).model_dump(mode="json"))
        for slide_id, slide_frames in frames.items():
            self.frames[deck.id, slide_id] = Payload.of(
                SlideFrames(deck=deck.id, slide=slide_id, frames=slide_frames).model_dump(mode="json"))

    def index(self) -> list[dict]:
        """Every deck that loaded, as rows of the decks index."""
        return [DeckSummary.of(d).model_dump(mode="json") for d in self.decks.values()]
