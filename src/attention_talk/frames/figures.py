"""Numbers in a deck's words are placeholders, filled from the engine and the cost model.

A caption says ``"{d_model} numbers go in, {d_k} come out"``, never ``7,168``: the deck
holds no number, so changing the preset or the sentence changes every figure the talk states.
Figures come from figure sources: functions of the deck returning ``{name: value}``. Every deck
gets ``COMMON`` (its preset, and its ``story:`` sentence's length and focus word, which every deck
has: no chapter's inputs are built for them); a chapter adds its own sources
(``frames/<chapter>/figures.py``), and ``load_deck`` passes a deck the sources of the chapters
whose builders it uses. Integers are printed with
thousands separators. ``{{`` and ``}}`` give literal braces.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from pathlib import Path

from attention_talk.deck import Deck, DeckError
from attention_talk.engine.costs import costs
from attention_talk.formatting import count

FigureSource = Callable[[Deck], dict[str, object]]


def preset_figures(deck: Deck) -> dict[str, object]:
    """Dimensions and counts of the deck's preset (cost model: formulas and sources there)."""
    c = costs(deck.preset)
    p = c.preset
    per_token = c.flops_per_token()
    out: dict[str, object] = {
        "model": "DeepSeek-V3.2" if p.name == "deepseek-v3.2" else p.name,
        "d_model": p.d_model, "heads": p.heads, "d_k": p.d_k, "d_v": p.d_v, "layers": p.layers,
        "weights_per_head": c.weights_per_head("W_Q").value,
        "weights_attention": c.weights_attention().value,
        "flops_per_weight": 2,
        "flops_one_head_one_token": c.flops_projection_per_head("W_Q").value,
        "flops_per_token_constant": per_token.constant,
        "flops_per_token_per_n": per_token.per_n,
        "concat_width": p.heads * p.d_v,
    }
    if p.max_positions:
        out["max_positions"] = p.max_positions
    if p.vocab:
        out["vocab"] = p.vocab
    return out


def story_figures(deck: Deck) -> dict[str, object]:
    """The deck's ``story:`` sentence (words only, no chapter's model): its length and the token it
    follows. Every deck has one, and decks of several chapters quote them (``{n}``, ``{focus}``)."""
    tokens = deck.story.tokens
    n = len(tokens)
    return {"n": n, "n_cells": n * n, "n2": 2 * n, "n2_cells": 4 * n * n,
            "focus": deck.story.focus or tokens[-1]}


COMMON: tuple[FigureSource, ...] = (preset_figures, story_figures)


def figures(deck: Deck, sources: Sequence[FigureSource] = COMMON) -> dict[str, str]:
    """Every figure the deck's text may use (from ``sources``), already formatted."""
    out: dict[str, str] = {}
    for source in sources:
        for name, value in source(deck).items():
            out[name] = count(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
    return out


def fill(text: str, figs: dict[str, str]) -> str:
    """Replace ``{name}`` placeholders; KeyError/ValueError name the problem."""
    pieces = []
    for literal, field, spec, conv in string.Formatter().parse(text):
        pieces.append(literal)
        if field is None:
            continue
        if not field.isidentifier() or spec or conv:
            raise ValueError(f"placeholder {{{field}}} must be a plain name like {{d_model}}")
        if field not in figs:
            raise KeyError(field)
        pieces.append(figs[field])
    return "".join(pieces)


def prepare_deck(deck: Deck, path: Path | None = None, sources: Sequence[FigureSource] = COMMON) -> Deck:
    """The deck with every placeholder in its words filled; DeckError names any unknown one."""
    figs = figures(deck, sources)
    errors: list[str] = []

    def resolve(text: str, where: str) -> str:
        try:
            return fill(text, figs)
        except KeyError as exc:
            errors.append(f"{where}: unknown figure {{{exc.args[0]}}}; known figures: {', '.join(sorted(figs))}")
        except ValueError as exc:
            errors.append(f"{where}: {exc}")
        return text

    slides = []
    for i, slide in enumerate(deck.slides):
        at = f"slide {i + 1} ({slide.id})"
        steps = [step.model_copy(update={
            "caption": resolve(step.caption, f"{at} › step {j + 1} › field caption"),
            "narration": resolve(step.narration, f"{at} › step {j + 1} › field narration")})
            for j, step in enumerate(slide.steps)]
        slides.append(slide.model_copy(update={
            "title": resolve(slide.title, f"{at} › field title"),
            "notes": resolve(slide.notes, f"{at} › field notes"), "steps": steps}))
    prepared = deck.model_copy(update={
        "title": resolve(deck.title, "field title"), "subtitle": resolve(deck.subtitle, "field subtitle"),
        "slides": slides})
    if errors:
        raise DeckError(path or Path(f"{deck.id}.yaml"), errors)
    return prepared
