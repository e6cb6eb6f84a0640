"""No number is typed into a deck: figures in the words are {placeholders} filled by the engine."""

from __future__ import annotations

import pytest

from attention_talk.deck import DeckError, deck_files, deck_texts, read_deck, typed_number
from attention_talk.frames import load_deck
from attention_talk.frames.figures import fill
from attention_talk.paths import data_dir


@pytest.mark.parametrize("text", [
    "{d_model} numbers per token", "DeepSeek-V3.2 and GPT-2", "Vaswani et al. 2017, arXiv:1706.03762",
    "stage 7 of the pipeline", "weights between 0 and 1", "2 · the heads", "SmolLM2-135M",
    "model card (Hugging Face, Apache-2.0)"])
def test_allowed_digits(text: str) -> None:
    assert typed_number(text) is None


@pytest.mark.parametrize(("text", "number"), [
    ("7,168 numbers", "7,168"), ("a weight of 0.72", "0.72"), ("128 heads", "128"), ("width 2", "2"),
    ("about 10 tokens", "10"), ("{d_model} and 3 more", "3"), ("Apache-2.0 and 2.05", "2.05")])
def test_typed_numbers_are_found(text: str, number: str) -> None:
    assert typed_number(text) == number


@pytest.mark.parametrize("path", deck_files(data_dir("slides")), ids=lambda p: p.name)
def test_shipped_decks_type_no_number(path) -> None:
    deck = read_deck(path)  # raises DeckError on a typed number
    assert not [w for w, text in deck_texts(deck) if typed_number(text) is not None]


def test_a_typed_number_is_rejected_with_its_place(tmp_path) -> None:
    src = (data_dir("slides") / "attention-step-by-step.yaml").read_text()
    bad = tmp_path / "attention-step-by-step.yaml"
    bad.write_text(src.replace("Here are the {d_k} numbers", "Here are the 128 numbers", 1))
    with pytest.raises(DeckError) as info:
        read_deck(bad)
    assert any(e.startswith("slide 4 (query) › step 3 › field narration: the number '128' is typed")
               for e in info.value.errors), info.value.errors


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
