"""Frames: (deck, slide, step) → everything the player draws, computed by the engine.

Pure and deterministic: the same deck gives the same frames. ``load_deck`` / ``load_decks`` are
the one way in: they read a deck, check each step's builder and parameters against the chapters,
fill the placeholders with the figures of the chapters the deck uses, and return a deck ready for
``build_deck_frames``.

A deck using a chapter that reads a real model (chapter 3) is checked the same way at load time,
but its model figures stay as ``{placeholders}`` until ``prepare_model_deck(deck, model)`` fills
them; ``build_deck`` does that itself, once, and returns the prepared deck with its frames
(loading the default model when none is given). The web store builds such a deck on first
request, never at start-up.

Importing this package (or ``frames.contract``, the Frame contract the web app's schemas need) does
not import the chapters, their builders or NumPy: the functions below do on first use, and so do the
names ``BUILDERS`` and ``CHAPTERS`` (see ``attention_talk/lazy.py``).
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from attention_talk.deck import Deck, DeckError, read_deck, read_decks
from attention_talk.frames.contract import Frame, FrameBody
from attention_talk.frames.figures import COMMON, FigureSource, figures, prepare_deck
from attention_talk.frames.quiz import attach_questions, check_questions
from attention_talk.lazy import lazy_exports

if TYPE_CHECKING:
    from attention_talk.frames.build_context import BuildContext
    from attention_talk.frames.chapters import BUILDERS, CHAPTERS
    from attention_talk.frames.kit.words import StepWords

lazy_exports(__name__, {"BUILDERS": "chapters", "CHAPTERS": "chapters"})

__all__ = ["BUILDERS", "CHAPTERS", "Frame", "build_deck", "build_deck_frames", "build_frame", "figure_sources",
           "load_deck", "load_decks", "model_chapters", "needs_model", "prepare_model_deck"]


def _chapters_used(deck: Deck) -> list:
    from attention_talk.frames.chapters import BUILDERS, CHAPTERS

    used = {BUILDERS[s.frame.builder].chapter for sl in deck.slides for s in sl.steps
            if s.frame is not None and s.frame.builder in BUILDERS}
    return [c for c in CHAPTERS if c.name in used]


def model_chapters(deck: Deck) -> list:
    """The chapters of this deck that read a real model."""
    return [c for c in _chapters_used(deck) if c.needs_model]


def needs_model(deck: Deck) -> bool:
    """True when the deck's frames and some of its figures come from a real model."""
    return bool(model_chapters(deck))


def _kept_model_figures(deck: Deck) -> dict[str, object]:
    """At load time a model figure's placeholder stays as it is (filled by ``prepare_model_deck``)."""
    return {name: "{" + name + "}" for c in model_chapters(deck) for name in c.model_figure_names}


def model_figures(deck: Deck, model) -> dict[str, object]:
    """Every model figure of the deck's chapters, each source computed once from ``model``."""
    out: dict[str, object] = {}
    for chapter in model_chapters(deck):
        for fn in chapter.model_figures:
            out.update(fn(deck, model))
    return out


def prepare_model_deck(deck: Deck, model, figs: dict[str, object] | None = None) -> Deck:
    """The deck with its model figures filled from ``model`` (an ``attention_talk.model.Model``), or
    from ``figs`` when they are already computed (``model_figures``)."""
    if not model_chapters(deck):
        return deck
    made = model_figures(deck, model) if figs is None else figs
    return prepare_deck(deck, None, [lambda _deck: made])


def figure_sources(deck: Deck) -> list[FigureSource]:
    """The figures a deck's words may use: the common ones, then those of each chapter it uses."""
    from attention_talk.frames.chapters import BUILDERS, CHAPTERS

    used = {BUILDERS[s.frame.builder].chapter for sl in deck.slides for s in sl.steps
            if s.frame is not None and s.frame.builder in BUILDERS}
    sources = list(COMMON)
    for chapter in CHAPTERS:
        if chapter.name in used:
            sources.extend(chapter.figures)
    return sources


def _check_presets(deck: Deck) -> list[str]:
    """A chapter whose matrices are drawn at one preset's sizes refuses a deck with another preset,
    so every figure on a step agrees with every other figure on it."""
    from attention_talk.frames.chapters import BUILDERS, CHAPTERS

    used = {BUILDERS[s.frame.builder].chapter for sl in deck.slides for s in sl.steps
            if s.frame is not None and s.frame.builder in BUILDERS}
    return [f"field preset: the {ch.name} chapter's builders draw their matrices at the sizes of "
            f"{' or '.join(ch.presets)}, so preset {deck.preset!r} would make the captions and counters "
            f"disagree with the matrices; use preset: {ch.presets[0]} (the builders need {ch.needs})"
            for ch in CHAPTERS if ch.name in used and ch.presets is not None and deck.preset not in ch.presets]


def _check_builders(deck: Deck) -> list[str]:
    """Every step's builder exists and its parameters validate; errors name slide, step, field."""
    from attention_talk.frames.chapters import BUILDERS

    errors: list[str] = []
    for i, slide in enumerate(deck.slides):
        for j, step in enumerate(slide.steps):
            if step.frame is None:
                continue
            at = f"slide {i + 1} ({slide.id}) › step {j + 1} › field frame"
            b = BUILDERS.get(step.frame.builder)
            if b is None:
                errors.append(f"{at}.builder: unknown frame builder {step.frame.builder!r}; "
                              f"known builders: {', '.join(sorted(BUILDERS))}")
                continue
            try:
                b.params_model.model_validate(step.frame.params)
            except ValidationError as exc:
                errors.extend(f"{at}.params" + "".join(f".{x}" for x in e["loc"]) + f": {e['msg']}"
                              for e in exc.errors())
        errors += _check_word_ids(deck, i)
    return errors


def _check_word_ids(deck: Deck, slide_index: int) -> list[str]:
    """Every note and card id a slide or step words is one its builders draw (a typo is caught when
    the deck loads, before any frame is built)."""
    from attention_talk.frames.chapters import BUILDERS

    slide = deck.slides[slide_index]
    at = f"slide {slide_index + 1} ({slide.id})"
    errors: list[str] = []

    def check(words, builders: list, where: str) -> None:
        for group in ("notes", "cards") if words else ():
            known = sorted({id for b in builders for id in getattr(b, group)})
            errors.extend(f"{where} › field words.{group}.{id}: unknown {group[:-1]} id {id!r}; "
                          + (f"its builder draws: {', '.join(known)}" if known else f"its builder draws no {group}")
                          for id in getattr(words, group) if id not in known)

    used = [BUILDERS[s.frame.builder] for s in slide.steps if s.frame and s.frame.builder in BUILDERS]
    check(slide.words, used, at)
    for j, step in enumerate(slide.steps):
        b = BUILDERS.get(step.frame.builder) if step.frame else None
        if step.frame is None or b is not None:
            check(step.words, [b] if b else [], f"{at} › step {j + 1}")
    return errors


def load_deck(path: Path) -> Deck:
    """Read a deck file, check it against the chapters and fill its figures: ready to build.
    Raises DeckError with one readable line per problem: every check runs once the structure is
    sound (typed numbers, builders and params, presets, placeholders), so all come at once."""
    try:
        deck, errors = read_deck(path), []
    except DeckError as exc:
        if exc.deck is None:  # the structure itself: nothing further can be checked
            raise
        deck, errors = exc.deck, list(exc.errors)
    errors += _check_builders(deck) + _check_presets(deck) + check_questions(deck)
    sources = figure_sources(deck) + ([_kept_model_figures] if needs_model(deck) else [])
    try:
        prepared = prepare_deck(deck, path, sources)
    except DeckError as exc:
        errors += exc.errors
    if errors:
        raise DeckError(path, sorted(errors, key=_position))
    return prepared


def _position(error: str) -> tuple[int, int]:
    """Where in the file an error is ('slide 3 (map) › step 2 › …'): the deck's own fields first."""
    m = re.match(r"slide (\d+)\b(?:.*? › step (\d+)\b)?", error)
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)


def load_decks(folder: Path) -> tuple[dict[str, Deck], list[DeckError]]:
    """Every deck in ``folder``, ready to build; a bad deck is logged, reported and skipped."""
    return read_decks(folder, load=load_deck)


def _deck_figures(ctx: BuildContext) -> dict[str, str]:
    """Every figure of the deck (its model's too, for a chapter that reads one), formatted once per
    build: the placeholders of the notes and cards are filled when a frame is built."""
    def make() -> dict[str, str]:
        sources = figure_sources(ctx.deck)
        if ctx.model is not None:  # the model figures the deck was prepared with, not computed again
            made = ctx.cached("model figures", lambda: model_figures(ctx.deck, ctx.model))
            sources += [lambda _deck: made]
        return figures(ctx.deck, sources)

    return ctx.cached("deck figures", make)


def _build_body(ctx: BuildContext, slide_index: int, step_index: int) -> tuple[FrameBody, StepWords | None]:
    """What the step's builder draws, with the words it drew (None for a step without a frame)."""
    from attention_talk.frames.chapters import BUILDERS
    from attention_talk.frames.kit.words import StepWords, speaking

    slide = ctx.deck.slides[slide_index]
    step = slide.steps[step_index]
    if step.frame is None:
        return FrameBody(), None
    b = BUILDERS[step.frame.builder]
    words = StepWords(step.words, slide.words, partial(_deck_figures, ctx), b.notes, b.cards)
    with speaking(words):
        return b.func(b.context.of(ctx), b.params_model.model_validate(step.frame.params)), words


def _frame(ctx: BuildContext, slide_index: int, step_index: int, body: FrameBody) -> Frame:
    deck = ctx.deck
    slide = deck.slides[slide_index]
    step = slide.steps[step_index]
    return Frame(**dict(body), deck=deck.id, slide=slide.id, slide_number=slide_index + 1,
                 step=step_index + 1, steps=len(slide.steps), caption=step.caption,
                 narration=step.narration, builder=step.frame.builder if step.frame else None)


def build_frame(ctx: BuildContext, slide_index: int, step_index: int) -> Frame:
    """The frame of one step (indices 0-based); its notes and cards worded by the deck."""
    return _frame(ctx, slide_index, step_index, _build_body(ctx, slide_index, step_index)[0])


def build_deck_frames(deck: Deck, model=None, model_path: Path | None = None) -> dict[str, list[Frame]]:
    """Every frame of a deck, keyed by slide id (``build_deck``, without the deck it returns)."""
    return build_deck(deck, model, model_path)[1]


def build_deck(deck: Deck, model=None, model_path: Path | None = None) -> tuple[Deck, dict[str, list[Frame]]]:
    """The deck as its frames were built, and every frame of it, keyed by slide id. A deck that needs
    a real model has its model figures filled here, once (``prepare_model_deck``), from ``model``
    (default: ``attention_talk.model.load(model_path)``, the packaged model when ``model_path`` is
    None; DeckError saying how to install one when there is none): keep the deck returned rather
    than preparing it again. A builder that fails raises DeckError naming the slide, the step and
    the builder."""
    figs = None
    if needs_model(deck):
        if model is None:
            from attention_talk.model import ModelMissing, load

            try:
                model = load(model_path)
            except ModelMissing as exc:
                raise DeckError(Path(f"{deck.id}.yaml"), [f"this deck needs the model: {exc}"]) from None
        figs = model_figures(deck, model)
        deck = prepare_model_deck(deck, model, figs)
    return deck, _build_frames(deck, model, figs)


def _build_frames(deck: Deck, model, figs: dict[str, object] | None = None) -> dict[str, list[Frame]]:
    """Every frame of a deck ready to build (its model figures filled); every failing step reported."""
    from attention_talk.frames.build_context import BuildContext
    from attention_talk.frames.chapters import BUILDERS, CHAPTERS
    from attention_talk.frames.kit.words import WordsError

    ctx = BuildContext(deck, model=model)
    if figs is not None:
        ctx.cached("model figures", lambda: figs)
    out: dict[str, list[Frame]] = {}
    errors: list[str] = []
    for i, slide in enumerate(deck.slides):
        out[slide.id] = []
        at = f"slide {i + 1} ({slide.id})"
        drawn: set[tuple[str, str]] = set()
        for j, step in enumerate(slide.steps):
            try:
                body, words = _build_body(ctx, i, j)
                out[slide.id].append(_frame(ctx, i, j, body))
            except WordsError as exc:
                errors.append(f"{at} › step {j + 1} › field {exc.field}: {exc}")
                continue
            except Exception as exc:  # a builder's failure becomes one readable line; the others still run
                name = step.frame.builder if step.frame else "-"
                chapter = {c.name: c for c in CHAPTERS}.get(BUILDERS[name].chapter) if name in BUILDERS else None
                needs = f" (the {chapter.name} chapter's builders need {chapter.needs})" if chapter else ""
                errors.append(f"{at} › step {j + 1} › field frame: builder {name!r} "
                              f"failed: {type(exc).__name__}: {exc}{needs}")
                continue
            if words is not None:
                drawn |= words.drawn
                errors.extend(f"{at} › step {j + 1} › field {f}: {why}" for f, why in words.unused())
        errors.extend(f"{at} › field {f}: {why}" for f, why in _unused_slide_words(slide, drawn))
    errors += attach_questions(deck, out)
    if errors:
        raise DeckError(Path(f"{deck.id}.yaml"), errors)
    return out


def _unused_slide_words(slide, drawn: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """The slide's shared texts that none of its steps drew."""
    words = slide.words
    return [(f"words.{group}.{id}", f"no step of this slide draws the {group[:-1]} {id!r}")
            for group in ("notes", "cards") for id in (getattr(words, group) if words else {})
            if (group, id) not in drawn]
