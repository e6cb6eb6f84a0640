"""Every deck and every frame, computed once at start-up and kept as ready-to-send JSON."""

from __future__ import annotations

import gzip
import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

import brotli
import orjson

from attention_talk.deck import Deck, DeckError
from attention_talk.frames import build_deck_frames, load_decks

log = logging.getLogger(__name__)


ENCODERS = {  # content-coding → compress; maximum effort, as each body is compressed only once
    "br": lambda body: brotli.compress(body, quality=11),
    "gzip": lambda body: gzip.compress(body, compresslevel=9, mtime=0),
}


@dataclass(frozen=True)
class Payload:
    """A JSON body with its strong ETag, and its compressed forms (made on first use, then kept)."""

    body: bytes
    etag: str
    _encoded: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, data: object) -> Payload:
        body = orjson.dumps(data)
        return cls(body, '"' + hashlib.blake2b(body, digest_size=12).hexdigest() + '"')

    def encoded(self, coding: str) -> bytes:
        """The body compressed with ``coding`` (one of ENCODERS)."""
        if coding not in self._encoded:
            self._encoded[coding] = ENCODERS[coding](self.body)
        return self._encoded[coding]


def manifest(deck: Deck) -> dict:
    """What the player needs to know about a deck (the JSON twin of the talk page)."""
    return {
        "id": deck.id, "title": deck.title, "subtitle": deck.subtitle, "preset": deck.preset,
        "show_progress": deck.show_progress, "steps": deck.step_count,
        "slides": [{"id": s.id, "number": i + 1, "title": s.title, "template": s.template,
                    "notes": s.notes, "steps": len(s.steps),
                    "captions": [st.caption for st in s.steps]}
                   for i, s in enumerate(deck.slides)],
    }


@dataclass
class Store:
    decks: dict[str, Deck] = field(default_factory=dict)
    errors: list[DeckError] = field(default_factory=list)
    manifests: dict[str, Payload] = field(default_factory=dict)
    frames: dict[tuple[str, str], Payload] = field(default_factory=dict)

    @classmethod
    def load(cls, folder: Path) -> Store:
        decks, errors = load_decks(folder)
        store = cls(errors=errors)
        for deck_id, deck in decks.items():
            try:
                frames = build_deck_frames(deck)
            except Exception as exc:  # a deck whose frames fail must not stop the others
                log.exception("skipping deck %s: its frames failed", deck_id)
                store.errors.append(DeckError(folder / f"{deck_id}.yaml", [f"frames failed: {exc}"]))
                continue
            store.decks[deck_id] = deck
            store.manifests[deck_id] = Payload.of(manifest(deck))
            for slide_id, slide_frames in frames.items():
                store.frames[deck_id, slide_id] = Payload.of(
                    {"deck": deck_id, "slide": slide_id,
                     "frames": [f.model_dump(mode="json") for f in slide_frames]})
        return store

    def index(self) -> list[dict]:
        return [{"id": d.id, "title": d.title, "subtitle": d.subtitle, "slides": len(d.slides),
                 "steps": d.step_count} for d in self.decks.values()]
