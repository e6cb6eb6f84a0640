"""No number is typed into a deck: figures in the words are {placeholders} filled by the engine."""

from __future__ import annotations

import re

import pytest

from attention_talk.deck import DeckError, deck_files, read_deck
from attention_talk.figures import fill
from attention_talk.frames import load_deck
from attention_talk.paths import data_dir

# What may contain a digit in a deck's words: model names, years of papers, arXiv ids, ordinals
# that name a part of the talk (section 2, stage 7, tile 3), and the bounds of softmax (0 and 1),
# which are properties of the maths rather than computed figures.
ALLOWED = re.compile(r"\{[a-z_][a-z0-9_]*\}|DeepSeek-V\d(\.\d)?(-Exp)?|SmolLM2(-135M)?|GPT-\d|"
                     r"\b(19|20)\d\d\b|arXiv:\d{4}\.\d{4,5}|"
                     r"\b(?:[Ss]tage|[Tt]ile|[Ss]tep|[Hh]ead|[Ss]ection|[Ss]lide|[Ll]ayer|[Bb]lock)s? \d{1,2}\b|"
                     r"^\d{1,2} · |(?<![\d.,])[01](?!\d|[.,]\d)")


def texts(deck):
    yield "title", deck.title
    yield "subtitle", deck.subtitle
    for i, slide in enumerate(deck.slides, 1):
        yield f"slide {i} ({slide.id}) title", slide.title
        yield f"slide {i} ({slide.id}) notes", slide.notes
        for j, step in enumerate(slide.steps, 1):
            yield f"slide {i} ({slide.id}) step {j} caption", step.caption
            yield f"slide {i} ({slide.id}) step {j} narration", step.narration


@pytest.mark.parametrize("path", deck_files(data_dir("slides")), ids=lambda p: p.name)
def test_no_number_is_typed_into_a_deck(path) -> None:
    deck = read_deck(path)
    offenders = [f"{where}: {text!r}" for where, text in texts(deck) if re.search(r"\d", ALLOWED.sub("", text))]
    assert not offenders, ("write figures as {placeholders} (see attention_talk.figures), not digits:\n"
                           + "\n".join(offenders))


@pytest.mark.parametrize("path", deck_files(data_dir("slides")), ids=lambda p: p.name)
def test_every_placeholder_is_known(path) -> None:
    load_deck(path)


def test_fill_and_errors() -> None:
    figs = {"d_model": "7,168"}
    assert fill("{d_model} numbers, {{literal}}", figs) == "7,168 numbers, {literal}"
    with pytest.raises(KeyError):
        fill("{nope}", figs)
    with pytest.raises(ValueError, match="plain name"):
        fill("{d_model:>10}", figs)


def test_unknown_placeholder_names_slide_step_and_field(tmp_path) -> None:
    src = (data_dir("slides") / "attention-step-by-step.yaml").read_text()
    bad = tmp_path / "attention-step-by-step.yaml"
    bad.write_text(src.replace("{d_k} numbers of this", "{dk} numbers of this", 1).replace(
        "Here are the {d_k} numbers", "Here are the {dk} numbers", 1))
    with pytest.raises(DeckError) as info:
        load_deck(bad)
    assert any(e.startswith("slide 4 (query) › step 3 › field narration: unknown figure {dk}")
               for e in info.value.errors)
