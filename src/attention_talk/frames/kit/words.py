"""A step's words: the texts of the notes and cards a builder draws come from the deck file.

A builder computes figures and draws ``note(id, box, kind, **figures)`` or ``card(id, **figures)``;
the text is the step's ``words.notes[id]`` (else its slide's), its {placeholders} filled from the
deck's figures and the ones the builder passes. So a builder never writes a sentence and a deck never
writes a number: a presenter rewords a slide in its YAML file. ``frames.build_frame`` sets the step
being built (``speaking``); the ids a builder may draw are declared where it is registered
(``@CHAPTER.builder(name, Params, notes=(...), cards=(...))``), so a deck naming another id is refused
when it loads, and one that lacks a text the builder draws when its frames are built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from attention_talk.deck import CardWords, Words
from attention_talk.formatting import count
from attention_talk.frames.contract import Box, Kind, Note
from attention_talk.frames.figures import fill

__all__ = ["StepWords", "WordsError", "card", "note", "speaking"]


class WordsError(ValueError):
    """A text a builder draws that the deck lacks or cannot fill; ``field`` is 'words.notes.about'."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass
class StepWords:
    """The words one step may show: its own over its slide's, with the deck's figures. ``drawn``
    records the ids used (a text nobody draws is reported as an error by the caller)."""

    step: Words | None
    slide: Words | None
    figures: Callable[[], Mapping[str, str]]  # the deck's, computed on the first text filled
    notes: tuple[str, ...] = ()  # the ids the step's builder declares
    cards: tuple[str, ...] = ()
    drawn: set[tuple[str, str]] = field(default_factory=set)

    def _lookup(self, group: str, id: str, declared: tuple[str, ...]) -> Any:
        if id not in declared:  # a builder drawing an id it did not declare: the code is wrong, not the deck
            raise RuntimeError(f"the builder draws {group[:-1]} {id!r} but declares only {declared}")
        self.drawn.add((group, id))
        for words in (self.step, self.slide):
            found = getattr(words, group).get(id) if words is not None else None
            if found is not None:
                return found
        raise WordsError(f"words.{group}.{id}", f"no text for the {group[:-1]} {id!r} this step's builder "
                         f"draws; add it under words: {{{group}: {{{id}: ...}}}} to the step or its slide")

    def fill(self, field: str, text: str, local: Mapping[str, object]) -> str:
        figs = dict(self.figures())
        for name, value in local.items():
            if name in figs:
                raise RuntimeError(f"the builder's figure {{{name}}} shadows the deck's figure of that name")
            figs[name] = count(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
        try:
            return fill(text, figs)
        except KeyError as exc:
            known = ", ".join(sorted(local)) or "none"
            raise WordsError(field, f"unknown figure {{{exc.args[0]}}}; this text's own figures: {known}; "
                             "the deck's: `attention-talk figures`") from None
        except ValueError as exc:
            raise WordsError(field, str(exc)) from None

    def unused(self) -> list[tuple[str, str]]:
        """('words.notes.x', why) for each of the step's own texts its builder did not draw."""
        return [(f"words.{group}.{id}", f"this step's builder does not draw the {group[:-1]} {id!r} here")
                for group in ("notes", "cards") for id in (getattr(self.step, group) if self.step else {})
                if (group, id) not in self.drawn]


_SPEAKING: ContextVar[StepWords | None] = ContextVar("speaking", default=None)


@contextmanager
def speaking(words: StepWords) -> Iterator[StepWords]:
    """Builders called inside draw their notes and cards with ``words``."""
    token = _SPEAKING.set(words)
    try:
        yield words
    finally:
        _SPEAKING.reset(token)


def _current() -> StepWords:
    words = _SPEAKING.get()
    if words is None:
        raise RuntimeError("a note or card drawn outside a step: build frames with frames.build_frame")
    return words


def note(id: str, box: Box, kind: Kind = "neutral", *, key: str | None = None, also: tuple[str, ...] = (),
         **figures: object) -> Note:
    """The note ``id`` with the deck's text ``words.notes[key or id]``, filled with ``figures``
    (ints printed with thousands separators; anything else as the builder formatted it).

    ``key`` picks one of several texts by what the numbers say (the rows are identical, or differ);
    ``also``: the other texts it could have picked, which a step may give without drawing them."""
    words = _current()
    key = key or id
    words.drawn.update(("notes", other) for other in also)
    text: str = words._lookup("notes", key, words.notes)
    return Note(id=id, text=words.fill(f"words.notes.{key}", text, figures), box=box, kind=kind)


def card(id: str, *, kind: Kind | None = None, tag: str | None = None, body: bool = True,
         **figures: object) -> dict[str, Any]:
    """The card ``id`` (an item of a ``cards`` widget) with the deck's ``words.cards[id]``: title,
    tag and body filled with ``figures``. ``tag``: a tag that is notation, not words (a GGUF key);
    ``body=False`` shows the title alone (a card summed up earlier)."""
    words = _current()
    w: CardWords = words._lookup("cards", id, words.cards)
    at = f"words.cards.{id}"
    item: dict[str, Any] = {"title": words.fill(f"{at}.title", w.title, figures),
                            "body": words.fill(f"{at}.body", w.body, figures) if body else ""}
    if tag is not None or w.tag is not None:
        item["tag"] = tag if tag is not None else words.fill(f"{at}.tag", w.tag or "", figures)
    if kind is not None:
        item["kind"] = kind
    return item
