"""A slide's words live in its deck file: the notes and cards a builder draws take their texts from
the step's (or slide's) ``words``, filled with figures; a builder writes no sentence."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.paths import data_dir

FRAMES = Path(__file__).resolve().parents[1] / "src" / "attention_talk" / "frames"
CHAPTERS = [
    "step_by_step",
    "walkthrough",
    "real_heads",
]


def _texts_written_in(path: Path) -> list[str]:
    """Where a module draws a note or a card with words of its own: a ``Note(...)`` call (notes go
    through ``kit.words.note``, which takes the deck's text) or a dict with a ``body`` key (a card)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Note":
            found.append(f"{path.name}:{node.lineno} Note(...)")
        if isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "body" for k in node.keys):
            found.append(f"{path.name}:{node.lineno} a card's body")
    return found


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_builder_writes_the_words_of_a_note_or_card(chapter: str) -> None:
    offenders = [hit for path in sorted((FRAMES / chapter).glob("*.py")) for hit in _texts_written_in(path)]
    assert offenders == []


def _pattern(template: str) -> re.Pattern[str]:
    """A template's text with each {placeholder} matching any value (literal braces doubled)."""
    pieces = re.split(r"(\{[a-z_][a-z0-9_]*\})", template.replace("{{", "\0").replace("}}", "\1"))
    body = "".join("(.+?)" if re.fullmatch(r"\{[a-z_][a-z0-9_]*\}", p) else
                   re.escape(p.replace("\0", "{").replace("\1", "}")) for p in pieces)
    return re.compile(body, re.DOTALL)


DECKS = [data_dir("slides") / "attention-step-by-step.yaml", data_dir("slides") / "attention-walkthrough.yaml",
         data_dir("slides") / "real-heads.yaml", data_dir("slides") / "deepseek-attention.yaml",
         Path(__file__).resolve().parents[1] / "docs" / "example-deck.yaml"]


def _run_texts(frame) -> set[str]:
    """The texts a frame's tensors were computed from by a real model (the deck's sentence, the
    repeated random words): a note may quote them, they are the run's input, not a builder's words."""
    return {s.text.strip() for t in frame.tensors for s in (t.source, t.derived_from) if s is not None}


def _assert_no_words_in(values, frame) -> None:
    for value in values:
        if value.strip() not in _run_texts(frame):
            assert not re.search(r"[a-z]+(?: [a-z]+){3}", value), f"a figure holds words: {value!r}"


@pytest.mark.parametrize("path", DECKS, ids=lambda p: p.stem)
def test_every_note_shown_is_a_text_of_its_step(path: Path) -> None:
    """Each note on the stage is one of its step's or slide's texts with numbers in the placeholders,
    and the sentences do not come from the figures (no figure value holds four words)."""
    deck = load_deck(path)
    frames = build_deck_frames(deck)
    seen = 0
    for slide in deck.slides:
        for step, frame in zip(slide.steps, frames[slide.id], strict=True):
            texts = {**(slide.words.notes if slide.words else {}), **(step.words.notes if step.words else {})}
            for note in frame.notes:
                matches = [m for t in texts.values() if (m := _pattern(t).fullmatch(note.text))]
                assert matches, f"{slide.id} step {frame.step}: note {note.id!r} is not a deck text: {note.text!r}"
                seen += 1
                _assert_no_words_in(matches[0].groups(), frame)
    assert seen > 0


def _cards_shown(frame) -> list[dict]:
    return [item for w in frame.widgets if w.type == "cards" for item in w.model_dump(mode="json")["data"]["cards"]]


CARD_DECKS = [data_dir("slides") / "real-heads.yaml"]


@pytest.mark.parametrize("path", CARD_DECKS, ids=lambda p: p.stem)
def test_every_card_shown_is_a_text_of_its_step(path: Path) -> None:
    """Each card's title and body are one card's words of its step or slide, numbers in the
    placeholders and no figure holding a sentence (a tag may be notation from the builder)."""
    deck = load_deck(path)
    frames = build_deck_frames(deck)
    seen = 0
    for slide in deck.slides:
        for step, frame in zip(slide.steps, frames[slide.id], strict=True):
            words = {**(slide.words.cards if slide.words else {}), **(step.words.cards if step.words else {})}
            for item in _cards_shown(frame):
                body = item.get("body") or ""  # a card drawn as its title alone shows no body
                found = [(t, b) for w in words.values() if (t := _pattern(w.title).fullmatch(item["title"]))
                         and (b := _pattern(w.body if body else "").fullmatch(body))]
                assert found, f"{slide.id} step {frame.step}: card {item['title']!r} is not a deck text"
                seen += 1
                _assert_no_words_in(found[0][0].groups() + found[0][1].groups(), frame)
    assert seen > 0


def test_the_pattern_captures_each_figure() -> None:
    """The check above reads each placeholder's value, so a sentence smuggled in as a figure fails."""
    assert _pattern("“{word}” asks, {{braces}}.").fullmatch("“dog” asks, {braces}.").groups() == ("dog",)
    assert _pattern("{a} × {b}").fullmatch("7 × 128").groups() == ("7", "128")
    assert not _pattern("The rows differ.").fullmatch("The rows differ. More.")


def test_a_card_takes_its_words_from_the_step_then_the_slide() -> None:
    """``card`` (used as chapters 2 and 3 move their cards): title, tag and body from the deck, the
    step's over the slide's, figures filled; a tag that is notation comes from the builder."""
    from attention_talk.deck import Words
    from attention_talk.frames.kit.words import StepWords, WordsError, card, speaking

    slide = Words.model_validate({"cards": {"jobs": {"title": "layer {layer}", "tag": "the request",
                                                     "body": "{share} of all {heads} heads"}}})
    step = Words.model_validate({"cards": {"file": {"title": "layers: {value}"}}})
    words = StepWords(step, slide, lambda: {"heads": "270"}, cards=("jobs", "file", "gone"))
    with speaking(words):
        assert card("jobs", kind="weights", layer=16, share="79%") == {
            "title": "layer 16", "body": "79% of all 270 heads", "tag": "the request", "kind": "weights"}
        assert card("file", tag="llama.block_count", value=30) == {
            "title": "layers: 30", "body": "", "tag": "llama.block_count"}
        assert card("jobs", body=False, layer=1, share="x")["body"] == ""
        with pytest.raises(WordsError, match="no text for the card 'gone'") as exc:
            card("gone")
        assert exc.value.field == "words.cards.gone"
        with pytest.raises(WordsError, match=r"unknown figure \{share\}"):
            card("jobs", layer=1)
    assert words.unused() == []


WORDED_CARD_DECKS = [data_dir("slides") / "attention-walkthrough.yaml"]


def _card_matches(words, card) -> bool:
    """``card`` shows ``words``: its title, tag and body with numbers in the placeholders (a card
    summed up earlier shows its title alone; a tag that is notation comes from the builder)."""
    return bool(_pattern(words.title).fullmatch(card.title)
                and (card.body == "" or _pattern(words.body).fullmatch(card.body))
                and (words.tag is None or (card.tag is not None and _pattern(words.tag).fullmatch(card.tag))))


@pytest.mark.parametrize("path", WORDED_CARD_DECKS, ids=lambda p: p.stem)
def test_every_card_shown_is_a_deck_text(path: Path) -> None:
    """Each card of a ``cards`` widget is one of its step's or slide's card texts, so a presenter
    rewords a card in the deck file (issue 28 item 3); its figures may quote the designed sentences
    of the chapter's inputs, so they are not checked for words here."""
    deck = load_deck(path)
    frames = build_deck_frames(deck)
    seen = 0
    for slide in deck.slides:
        for step, frame in zip(slide.steps, frames[slide.id], strict=True):
            texts = {**(slide.words.cards if slide.words else {}), **(step.words.cards if step.words else {})}
            for widget in (w for w in frame.widgets if w.type == "cards"):
                for card in widget.data.cards:
                    assert any(_card_matches(t, card) for t in texts.values()), (
                        f"{slide.id} step {frame.step}: card {card.title!r} is not a deck text")
                    seen += 1
    assert seen > 0


MAX_STAGE_WORDS = 25  # VISUAL.md §2: a note on stage is at most 25 words; longer text goes to the narration


def _stage_words(text: str) -> int:
    """Words as the audience reads them: a {placeholder} is one word (one number), markup none."""
    return len(re.sub(r"<[^>]+>", " ", text).split())


DECK_FILES = [*sorted(p.name for p in data_dir("slides").glob("*.yaml")), "example-deck.yaml"]


@pytest.mark.parametrize("deck", DECK_FILES)
def test_every_note_and_card_on_stage_is_at_most_25_words(deck: str) -> None:
    from attention_talk.deck import read_deck

    docs = Path(__file__).resolve().parents[1] / "docs"
    path = docs / deck if deck == "example-deck.yaml" else data_dir("slides") / deck
    d = read_deck(path)
    long = []
    for slide in d.slides:
        steps = [("slide", getattr(slide, "words", None))]
        steps += [(f"step {i + 1}", s.words) for i, s in enumerate(slide.steps)]
        for where, words in steps:
            if words is None:
                continue
            long += [(slide.id, where, f"note {k}", _stage_words(v)) for k, v in words.notes.items()
                     if _stage_words(v) > MAX_STAGE_WORDS]
            long += [(slide.id, where, f"card {k}", _stage_words(c.body)) for k, c in words.cards.items()
                     if _stage_words(c.body) > MAX_STAGE_WORDS]
    assert long == []


@pytest.mark.parametrize(("words", "says"), [
    ({"notes": {"about": "word " * 26}}, "note 'about': 26 words; a text on stage is at most 25"),
    ({"cards": {"rnn": {"title": "RNN", "body": "word " * 31}}}, "body: 31 words; a text on stage is at most 25"),
])
def test_a_deck_with_a_longer_text_on_stage_is_refused_naming_it(words, says) -> None:
    """The rule above, enforced where authors meet it: `attention-talk validate` and every load."""
    from pydantic import ValidationError

    from attention_talk.deck import Words

    with pytest.raises(ValidationError, match=re.escape(says)):
        Words.model_validate(words)
    assert Words.model_validate({"notes": {"about": "{n} tokens, " + "word " * 23}})  # 25: allowed
