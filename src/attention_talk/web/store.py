"""Every deck and every frame, kept as ready-to-send JSON payloads (built from the response models
in schemas.py; compressed and ETagged by compression.py).

The app's factory makes the store with ``load(eager=False)``, which only checks that the decks
folder exists: nothing is read, imported or built before the server answers. The decks are read
and checked on first use (``read``, once, which imports the chapters' builders; the app reads them
off the event loop, see ``web/deps.py``), and a deck's frames are built on its first request, once,
in the caller's worker thread (``ensure``), or before that by ``warm_in_background``, which the app
starts once it serves: decks from designed inputs at once, a deck that needs the real model
(chapter 3) once the model has loaded. ``/healthz`` never waits for any of it. Without the model
such a deck stays listed with a "needs the model" message, and its URLs answer 503 with the install
hint. ``load`` reads the decks and builds the designed ones before returning unless told
``eager=False``.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from attention_talk.deck import Deck, DeckError
from attention_talk.frames import build_deck, build_deck_frames, load_decks, needs_model
from attention_talk.frames.quiz import question_shape
from attention_talk.model import INSTALL_HINT, ModelFileError, ModelMissing, loader
from attention_talk.model.gguf_file import resolve_path
from attention_talk.web.compression import Payload
from attention_talk.web.offload import in_background
from attention_talk.web.schemas import DeckSummary, Manifest, SlideFrames

log = logging.getLogger(__name__)


class DecksFolderMissing(FileNotFoundError):
    """The configured decks folder does not exist."""


class DeckUnavailable(RuntimeError):
    """A deck that needs the model cannot be built now; the message says why and how to fix it."""


def needs_model_message(reason: str) -> str:
    return f"this deck needs the model: {reason}"


def split_parts(frames: list[dict]) -> list[dict[str, list[list[dict]]]]:
    """Take every cell's ``parts`` out of the (JSON) frames, in place; return them by step, tensor and
    cell (the SlideDerivations shape)."""
    steps = []
    for frame in frames:
        by_tensor = {}
        for tensor in frame["tensors"]:
            if tensor.get("derivation"):
                by_tensor[tensor["name"]] = [cell.pop("parts") for cell in tensor["derivation"]["cells"]]
        steps.append(by_tensor)
    return steps


@dataclass
class Store:
    decks: dict[str, Deck] = field(default_factory=dict)  # built: frames ready to send
    manifests: dict[str, Payload] = field(default_factory=dict)
    frames: dict[tuple[str, str], Payload] = field(default_factory=dict)
    steps: dict[tuple[str, str, int], Payload] = field(default_factory=dict)  # one step's frame (StepFrame)
    derivations: dict[tuple[str, str], Payload] = field(default_factory=dict)
    # (deck, slide, step) → the shape of the question asked there (frames/quiz.py question_shape)
    questions: dict[tuple[str, int, int], tuple[str, int, int]] = field(default_factory=dict)
    folder: Path | None = None
    model_path: Path | None = None
    model_cache_dir: Path | None = None  # the shared float32 weights (ATTENTION_TALK_MODEL_CACHE_DIR)
    build_seconds: dict[str, float] = field(default_factory=dict)
    _pending: dict[str, Deck] = field(default_factory=dict, repr=False)
    _order: list[str] = field(default_factory=list, repr=False)
    _errors: list[DeckError] = field(default_factory=list, repr=False)
    _read: bool = field(default=False, repr=False)
    _read_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _failed: dict[str, str] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, folder: Path, model_path: Path | None = None, eager: bool = True,
             model_cache_dir: Path | None = None) -> Store:
        """The decks in ``folder``: with ``eager``, read and checked now, and the frames of those
        from designed inputs built (the others: on first use, see ``ensure``); without, nothing is
        read until first use (``read``). A folder that does not exist is an error either way (the
        server must not start with no talk and no word why)."""
        if not folder.is_dir():
            raise DecksFolderMissing(f"the decks folder {str(folder)!r} does not exist "
                                     "(set ATTENTION_TALK_DECKS_DIR to a folder of deck YAML files)")
        store = cls(folder=folder, model_path=model_path, model_cache_dir=model_cache_dir)
        if eager:
            store.read()
            for deck_id in [d for d, deck in store.pending.items() if not needs_model(deck)]:
                store.try_ensure(deck_id)
        return store

    @property
    def is_read(self) -> bool:
        return self._read

    def read(self) -> None:
        """Read and check every deck of the folder, once (blocking: the first call imports the
        chapters' builders and parses the YAML). A bad deck is logged and skipped."""
        if self._read:
            return
        with self._read_lock:
            if self._read or self.folder is None:
                self._read = True
                return
            decks, errors = load_decks(self.folder)
            self._errors.extend(errors)
            self._pending.update(decks)
            self._order.extend(decks)
            self._read = True
        log.info("read %d deck(s) from %s%s", len(decks), self.folder,
                 f"; {len(errors)} skipped (see above)" if errors else "")
        if not decks:
            log.warning("no deck loaded from %s: the index will be empty", self.folder)

    @property
    def pending(self) -> dict[str, Deck]:
        """Decks read and checked whose frames are not built yet."""
        self.read()
        return self._pending

    @property
    def order(self) -> list[str]:
        """Every deck's id in the folder's order."""
        self.read()
        return self._order

    @property
    def errors(self) -> list[DeckError]:
        """The decks that could not be read or built, each with its reasons."""
        self.read()
        return self._errors

    def add(self, deck: Deck, frames: dict) -> None:
        """Keep ``deck`` with its manifest and every slide's frames and derivations, each as a ready
        payload: the frames without their cells' ``parts``, which wait apart until a panel opens."""
        for slide_id, slide_frames in frames.items():
            self.questions.update({(deck.id, f.slide_number, f.step): question_shape(f.question)
                                   for f in slide_frames if f.question is not None})
            body = SlideFrames(deck=deck.id, slide=slide_id, frames=slide_frames).model_dump(mode="json")
            self.derivations[deck.id, slide_id] = Payload.of(
                {"deck": deck.id, "slide": slide_id, "steps": split_parts(body["frames"])})
            self.frames[deck.id, slide_id] = Payload.of(body)
            for i, frame in enumerate(body["frames"], 1):  # parts already split off: the same frame's bytes
                self.steps[deck.id, slide_id, i] = Payload.of({"deck": deck.id, "slide": slide_id, "step": i,
                                                               "frame": frame})
        self.manifests[deck.id] = Payload.of(Manifest.of(deck).model_dump(mode="json"))
        self.decks[deck.id] = deck  # last: a deck is served only once its frames are all there

    def find(self, deck_id: str) -> Deck | None:
        """The deck, built or still waiting for its frames; None if there is no such deck."""
        return self.decks.get(deck_id) or self.pending.get(deck_id)

    def known(self) -> list[str]:
        """Every deck's id, built or waiting, sorted."""
        return sorted([*self.decks, *self.pending])

    def model_problem(self) -> str | None:
        """Why the model cannot be used (missing or unreadable file), else None. Cheap: no loading."""
        try:
            resolve_path(self.model_path)
        except ModelMissing as exc:
            return str(exc)
        return self._failed.get("model")

    def ensure(self, deck_id: str) -> Deck:
        """The deck, built now if its frames are not yet (blocking: call it from a worker thread).
        DeckUnavailable says why it cannot be built; KeyError for an unknown deck."""
        if deck_id in self.decks:
            return self.decks[deck_id]
        with self._lock:  # one build at a time; the others wait for it and then find the deck
            if deck_id in self.decks:
                return self.decks[deck_id]
            deck = self.pending[deck_id]
            if deck_id in self._failed:
                raise DeckUnavailable(self._failed[deck_id])
            t0 = time.perf_counter()
            if not needs_model(deck):
                return self._build_designed(deck_id, deck, t0)
            try:
                model = loader(self.model_path, self.model_cache_dir).model()
                prepared, frames = build_deck(deck, model)  # its model figures filled once, for frames and pages
            except ModelMissing as exc:  # not remembered: once installed, the next request builds it
                raise DeckUnavailable(needs_model_message(str(exc))) from None
            except ModelFileError as exc:
                self._failed["model"] = str(exc)
                raise DeckUnavailable(needs_model_message(f"{exc}; {INSTALL_HINT}")) from None
            except DeckError as exc:
                self._failed[deck_id] = f"deck {deck_id!r} could not be built: {'; '.join(exc.errors)}"
                log.error("%s", self._failed[deck_id])
                raise DeckUnavailable(self._failed[deck_id]) from None
            self.add(prepared, frames)
            del self.pending[deck_id]
            self.build_seconds[deck_id] = time.perf_counter() - t0
            log.info("built deck %s from the model in %.1f s", deck_id, self.build_seconds[deck_id])
            return self.decks[deck_id]

    def _build_designed(self, deck_id: str, deck: Deck, t0: float) -> Deck:
        """Build a deck from designed inputs (the caller holds the lock)."""
        try:
            frames = build_deck_frames(deck)
        except DeckError as exc:  # a deck whose frames fail must not stop the others
            self._failed[deck_id] = f"deck {deck_id!r} could not be built: {'; '.join(exc.errors)}"
            log.error("%s", self._failed[deck_id])
            if self.folder is not None:
                self._errors.append(DeckError(self.folder / f"{deck_id}.yaml", exc.errors))
            raise DeckUnavailable(self._failed[deck_id]) from None
        self.add(deck, frames)
        del self.pending[deck_id]
        self.build_seconds[deck_id] = time.perf_counter() - t0
        log.info("built deck %s in %.2f s", deck_id, self.build_seconds[deck_id])
        return self.decks[deck_id]

    def try_ensure(self, deck_id: str) -> Deck | None:
        """``ensure``, logging instead of raising why a deck cannot be built."""
        try:
            return self.ensure(deck_id)
        except DeckUnavailable as exc:
            log.info("deck %s not built: %s", deck_id, exc)
            return None

    def warm(self, model: bool = True) -> None:
        """Read the decks (if not yet) and build those still waiting (blocking): those from designed
        inputs, and with ``model`` those drawn from the real model. A deck that cannot be built is
        left for its requests to report."""
        self.read()
        for deck_id in [d for d, deck in list(self._pending.items()) if model or not needs_model(deck)]:
            self.try_ensure(deck_id)

    def warm_in_background(self, model: bool = True) -> threading.Thread | None:
        """``warm`` in a daemon thread (``offload.in_background``), so the first visitor does not wait
        (with ``model``: call it after the model has loaded). None when every deck is already built."""
        if self._read and not [d for d, deck in self._pending.items() if model or not needs_model(deck)]:
            return None
        return in_background(lambda: self.warm(model), "warm-decks")

    def index(self) -> list[dict]:
        """Every deck that loaded, as rows of the decks index (a deck waiting for a missing model
        says so)."""
        problem = self.model_problem() if any(needs_model(d) for d in self.pending.values()) else None
        waiting = {d: needs_model_message(problem) if problem and needs_model(deck) else None
                   for d, deck in self.pending.items() if d not in self._failed or needs_model(deck)}
        rows = []
        for deck_id in self.order:  # the folder's order, whether built or waiting
            if deck_id in self.decks:
                rows.append(DeckSummary.of(self.decks[deck_id]).model_dump(mode="json"))
            elif deck_id in waiting:
                rows.append(DeckSummary.of(self.pending[deck_id], needs_model=waiting[deck_id]).model_dump(mode="json"))
        return rows
