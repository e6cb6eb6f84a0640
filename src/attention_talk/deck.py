"""Decks: the talk's content, one YAML file per deck in ``slides/``, validated with pydantic.

This module reads and checks a deck's structure only; callers use ``attention_talk.frames.load_deck``,
which also checks each step's builder and parameters, fills the placeholders and returns a deck
ready to build. A deck holds slides; a slide holds steps; a step is one key press: a caption (what
the audience reads), a narration (what a student alone needs, what screen readers announce) and a
frame spec naming the builder that computes what is drawn. No number is ever written here.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import string
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from attention_talk import mathml
from attention_talk.engine.costs import PRESETS
from attention_talk.formatting import check_stage_words

log = logging.getLogger(__name__)
Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)]
TEMPLATES = ("matrix", "title", "text", "sources")
DECK_SUFFIXES = (".yaml", ".yml")
MAX_DECK_BYTES = 1_048_576  # a deck file larger is refused unread (the bundled decks are 15–26 kB)

# No number is typed into a deck's words: figures are {placeholders} filled by the engine. What may
# hold a digit: placeholders, model names, licence names (Apache-2.0), years of papers, arXiv ids,
# ordinals that name a part of the talk (section 2, stage 7, tile 3), and softmax's bounds 0 and 1
# (properties of the maths).
ALLOWED_DIGITS = re.compile(
    r"\{[a-z_][a-z0-9_]*\}|DeepSeek-V\d(\.\d)?(-Exp)?|SmolLM2(-135M)?|GPT-\d|Apache-\d\.\d\b|"
    r"\b(19|20)\d\d\b|arXiv:\d{4}\.\d{4,5}|"
    r"\b(?:[Ss]tage|[Tt]ile|[Ss]tep|[Hh]ead|[Ss]ection|[Ss]lide|[Ll]ayer|[Bb]lock)s? \d{1,2}\b|"
    r"^\d{1,2} · |(?<![\d.,])[01](?!\d|[.,]\d)")
_DIGITS = re.compile(r"[\d][\d.,]*")


def typed_number(text: str) -> str | None:
    """The first number typed into ``text`` that the rule above does not allow, else None."""
    m = _DIGITS.search(ALLOWED_DIGITS.sub(" ", text))
    return m.group(0).rstrip(".,") if m else None


class _Strict(BaseModel):
    # validators built on first use (defer_build): the web app imports Deck at start-up, reads decks after
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class FrameSpec(_Strict):
    """Which frame builder draws a step, with its parameters (checked against the builder)."""

    builder: str = Field(description="Name of a frame builder, e.g. 'story.map' "
                         "(`attention-talk builders` lists them).")
    params: dict[str, Any] = Field(default_factory=dict, description="The builder's parameters.")


LAB_MAX_WORDS = 64  # the lab's limit: 64 tokens (the illustrative source splits on spaces)

class LabLink(_Strict):
    """A link from a step to the lab (/lab), opening it with the step's own sentence."""

    text: str = Field(min_length=1, max_length=400, description="The sentence the lab opens with (at most 64 words).")
    source: Literal["illustrative", "model"] = Field(
        default="illustrative", description="illustrative (our engine, seeded weights) or model (SmolLM2-135M).")
    layer: int | None = Field(default=None, ge=0, le=1023, description="The layer, 0-based (model only).")
    head: int | None = Field(default=None, ge=0, le=63, description="The head, 0-based.")
    label: str = Field(default="Try it in the lab", min_length=1, max_length=60, description="The link's words.")

    @model_validator(mode="after")
    def _fits_the_lab(self) -> LabLink:
        words = self.text.split()
        if not words or len(words) > LAB_MAX_WORDS:
            raise ValueError(f"text: the lab takes 1 to {LAB_MAX_WORDS} words, got {len(words)}")
        if any(ord(ch) < 32 for ch in self.text):
            raise ValueError("text: no control characters (write the sentence on one line)")
        if self.layer is not None and self.source != "model":
            raise ValueError("layer: only the model source has layers; add source: model or drop the layer")
        return self

    @property
    def href(self) -> str:
        """``/lab?text=…&source=…&layer=…&head=…``: the lab's URL contract (layer and head 0-based)."""
        query: dict[str, str | int] = {"text": self.text, "source": self.source}
        query.update({k: v for k, v in (("layer", self.layer), ("head", self.head)) if v is not None})
        return f"/lab?{urlencode(query)}"


WordsId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$", max_length=40)]


def check_placeholders(text: str) -> str:
    """``text`` when every {placeholder} in it is a plain name (its value is known only when the
    frame is built: the deck's figures and the builder's own); ValueError otherwise."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise ValueError(f"{exc} (write {{{{ and }}}} for literal braces)") from None
    for _, name, spec, conv in parsed:
        if name is not None and (not name.isidentifier() or spec or conv):
            raise ValueError(f"placeholder {{{name}}} must be a plain name like {{d_model}}")
    return text


Text = Annotated[str, Field(min_length=1, max_length=600)]


class CardWords(_Strict):
    """The words of one card a builder draws: its heading, an optional short line under it, its text."""

    title: Text = Field(description="The card's heading.")
    tag: Text | None = Field(default=None, description="A short line under the heading (optional).")
    body: str = Field(default="", max_length=600, description="The card's text (optional).")

    @model_validator(mode="after")
    def _plain_placeholders(self) -> CardWords:
        for text in (self.title, self.tag or ""):
            check_placeholders(text)
        check_stage_words(check_placeholders(self.body), "body: ")
        return self


class Words(_Strict):
    """What the audience reads in what a builder draws: ``notes`` maps a note id the builder draws to
    its text, ``cards`` a card id to its words (`attention-talk builders` lists each builder's ids).
    Numbers are {placeholders}: the deck's figures and the figures the builder computes for the step."""

    notes: dict[WordsId, Text] = Field(default_factory=dict, description="Note id → the note's text.")
    cards: dict[WordsId, CardWords] = Field(default_factory=dict, description="Card id → its title, tag, body.")

    @field_validator("notes")
    @classmethod
    def _plain_note_placeholders(cls, notes: dict[str, str]) -> dict[str, str]:
        for id, text in notes.items():
            try:
                check_stage_words(check_placeholders(text))
            except ValueError as exc:
                raise ValueError(f"note {id!r}: {exc}") from None
        return notes

    def texts(self):
        """(field, text) for every text, field as 'words.notes.about' or 'words.cards.rnn.body'."""
        for id, text in self.notes.items():
            yield f"words.notes.{id}", text
        for id, card in self.cards.items():
            for name in ("title", "tag", "body"):
                if (text := getattr(card, name)):
                    yield f"words.cards.{id}.{name}", text


class Step(_Strict):
    caption: str = Field(min_length=1, max_length=200, description="Short line the audience reads.")
    narration: str = Field(min_length=1, description="Fuller explanation for students and screen readers.")
    frame: FrameSpec | None = Field(default=None, description="What is drawn; none for text-only steps.")
    lab: LabLink | None = Field(default=None, description=(
        "A link to the lab shown with this step, opening it with this sentence (and source, layer, head)."))
    words: Words | None = Field(default=None, description=(
        "The texts of the notes and cards this step's builder draws (they override the slide's)."))
    question: dict[str, Any] | None = Field(default=None, description=(
        "A guess asked here, revealed on the next step: kind, prompt, answer (checked by frames/quiz.py)."))


class Slide(_Strict):
    id: Slug
    title: str = Field(min_length=1, max_length=120)
    template: str = Field(default="matrix", description=f"The slide's kind: one of {', '.join(TEMPLATES)}.")
    notes: str = Field(min_length=1, description="Speaker notes.")
    equations: dict[str, str] = Field(default_factory=dict, description=(
        "Named LaTeX equations, rendered as MathML on the server; a frame's 'equation' widget shows one."))
    words: Words | None = Field(default=None, description=(
        "Texts of notes and cards shared by the slide's steps (a step's own words come first)."))
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_template(self) -> Slide:
        if self.template not in TEMPLATES:
            raise ValueError(f"unknown template {self.template!r}; known: {', '.join(TEMPLATES)}")
        return self

    @field_validator("equations")
    @classmethod
    def _equations_are_safe_mathml(cls, equations: dict[str, str]) -> dict[str, str]:
        for name, latex in equations.items():
            try:
                mathml.check(latex)
            except ValueError as exc:
                raise ValueError(f"equation {name!r}: {exc}") from None
        return equations

    def mathml(self, name: str) -> str:
        """The equation ``name`` as sanitised MathML markup, safe to insert into a page."""
        return mathml.render(self.equations[name])


class Story(_Strict):
    """The designed inputs the deck's frames are computed from."""

    sentence: str = Field(min_length=1, description="Tokens separated by spaces.")
    seed: int = Field(default=0, ge=0, description="Seed for numpy.random.default_rng.")
    focus: str | None = Field(default=None, description="The token the story follows, e.g. 'dog'.")

    @property
    def tokens(self) -> list[str]:
        return self.sentence.split()

    @model_validator(mode="after")
    def _focus_is_a_word_of_the_sentence(self) -> Story:
        if self.focus is not None and self.focus not in self.tokens:
            raise ValueError(f"focus {self.focus!r} is not a word of the sentence {self.sentence!r}; "
                             f"pick one of: {', '.join(dict.fromkeys(self.tokens))}")
        return self


class Deck(_Strict):
    id: Slug
    title: str = Field(min_length=1)
    subtitle: str = ""
    preset: str = Field(default="deepseek-v3.2", description=(
        f"Cost-model preset for the figures and counters: one of {', '.join(PRESETS)}."))
    story: Story
    show_progress: bool = Field(default=True, description="Show the progress bar and counter.")
    slides: list[Slide] = Field(min_length=1)

    @field_validator("preset")
    @classmethod
    def _known_preset(cls, preset: str) -> str:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; known presets: {', '.join(PRESETS)}")
        return preset

    @model_validator(mode="after")
    def _unique_slide_ids(self) -> Deck:
        seen: set[str] = set()
        for slide in self.slides:
            if slide.id in seen:
                raise ValueError(f"slide id {slide.id!r} is used twice")
            seen.add(slide.id)
        return self

    @property
    def step_count(self) -> int:
        return sum(len(s.steps) for s in self.slides)

    def slide_index(self, slide_id: str) -> int:
        for i, slide in enumerate(self.slides):
            if slide.id == slide_id:
                return i
        raise KeyError(slide_id)


class DeckError(ValueError):
    """A deck file that does not validate; ``errors`` are readable one-line messages. ``deck``: the
    deck as read, when its structure is sound and only its words failed (so later checks can still
    run and report their problems too)."""

    def __init__(self, path: Path, errors: list[str], deck: Deck | None = None):
        self.path = path
        self.errors = errors
        self.deck = deck
        super().__init__(f"{path}: " + "; ".join(errors))


def _describe_location(data: Any, loc: tuple[Any, ...]) -> str:
    """Turn a pydantic error location into 'slide <id> › step <n> › field' words."""
    parts: list[str] = []
    node = data
    i = 0
    while i < len(loc):
        key = loc[i]
        if key == "slides" and i + 1 < len(loc) and isinstance(loc[i + 1], int):
            idx = loc[i + 1]
            slide = node["slides"][idx] if isinstance(node, dict) else None
            sid = slide.get("id") if isinstance(slide, dict) else None
            parts.append(f"slide {idx + 1}" + (f" ({sid})" if sid else ""))
            node = slide
            i += 2
        elif key == "steps" and i + 1 < len(loc) and isinstance(loc[i + 1], int):
            parts.append(f"step {loc[i + 1] + 1}")
            node = node["steps"][loc[i + 1]] if isinstance(node, dict) else None
            i += 2
        else:
            parts.append(f"field {'.'.join(str(x) for x in loc[i:])}")
            break
    return " › ".join(parts) if parts else "deck"


def deck_texts(deck: Deck):
    """(where, text) for every piece of a deck's words, where as 'slide 2 (id) › step 1 › field caption'."""
    yield "field title", deck.title
    yield "field subtitle", deck.subtitle
    for i, slide in enumerate(deck.slides, 1):
        at = f"slide {i} ({slide.id})"
        yield f"{at} › field title", slide.title
        yield f"{at} › field notes", slide.notes
        for field, text in slide.words.texts() if slide.words else ():
            yield f"{at} › field {field}", text
        for j, step in enumerate(slide.steps, 1):
            yield f"{at} › step {j} › field caption", step.caption
            yield f"{at} › step {j} › field narration", step.narration
            if step.lab is not None:
                yield f"{at} › step {j} › field lab.label", step.lab.label
            for field, text in step.words.texts() if step.words else ():
                yield f"{at} › step {j} › field {field}", text


def _typed_numbers(deck: Deck) -> list[str]:
    return [f"{where}: the number {n!r} is typed into the words; write a {{placeholder}} instead "
            "(`attention-talk figures` lists them)" for where, text in deck_texts(deck)
            if (n := typed_number(text)) is not None]


def parse_deck(data: Any, path: Path) -> Deck:
    """Validate already-parsed YAML; raise DeckError naming slide, step and field."""
    if not isinstance(data, dict):
        raise DeckError(path, ["the file must hold a mapping (id, title, story, slides)"])
    try:
        deck = Deck.model_validate(data)
    except ValidationError as exc:
        errors = [f"{_describe_location(data, tuple(e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise DeckError(path, errors) from None
    errors = _typed_numbers(deck)
    if deck.id != path.stem:
        errors.insert(0, f"field id: {deck.id!r} must match the file name {path.name!r} "
                         f"(rename the file to {deck.id}{path.suffix or '.yaml'} or the id to {path.stem!r})")
    if errors:
        raise DeckError(path, errors, deck)
    return deck


def read_deck_text(path: Path, max_bytes: int = MAX_DECK_BYTES) -> str:
    """The text of a deck file, refused (DeckError, one line) before a byte is parsed when the file
    resolves outside its folder (a symlink out of the decks folder is not served), is not a regular
    file (a FIFO would block, a device never end), or is larger than ``max_bytes`` (checked with stat
    before reading, then read at most that many bytes: a file that grows meanwhile is refused too)."""
    folder, real = path.parent.resolve(), path.resolve()
    if not real.is_relative_to(folder):
        raise DeckError(path, [f"file: resolves outside its folder {str(folder)!r} (to {str(real)!r}); "
                               "a deck is read only from inside the decks folder"])
    # Opened without blocking (a FIFO put in the file's place would wait for a writer), then stat'ed:
    # the size and kind checked are those of the file read.
    with open(os.open(real, os.O_RDONLY | os.O_NONBLOCK), "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise DeckError(path, ["file: not a regular file"])
        if info.st_size > max_bytes:
            raise DeckError(path, [f"file: {info.st_size:,} bytes, more than the limit of {max_bytes:,} for a "
                                   "deck; not read"])
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise DeckError(path, [f"file: more than the limit of {max_bytes:,} bytes for a deck; not read"])
    return data.decode("utf-8")


def read_deck(path: Path) -> Deck:
    """Read one deck file (``read_deck_text``: bounded, never outside its folder) and validate its
    structure."""
    import yaml  # imported here: the web app's start-up reads no deck

    try:
        data = yaml.load(read_deck_text(path), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:  # YAML's messages span lines: one line here
        raise DeckError(path, [f"cannot read the file: {' '.join(str(exc).split())}"]) from None
    return parse_deck(data, path)


def deck_files(folder: Path) -> list[Path]:
    """Every deck file in ``folder``: ``*.yaml`` and ``*.yml``."""
    return sorted(p for p in folder.iterdir() if p.suffix in DECK_SUFFIXES and p.is_file())


def read_decks(folder: Path, load=read_deck) -> tuple[dict[str, Deck], list[DeckError]]:
    """Load every deck in ``folder`` with ``load``. A bad deck is logged and skipped; the others
    still load."""
    decks: dict[str, Deck] = {}
    errors: list[DeckError] = []
    for path in deck_files(folder):
        try:
            deck = load(path)
        except DeckError as exc:
            log.error("skipping deck %s", exc)
            errors.append(exc)
            continue
        if deck.id in decks:
            err = DeckError(path, [f"deck id {deck.id!r} is already used by another file"])
            log.error("skipping deck %s", err)
            errors.append(err)
            continue
        decks[deck.id] = deck
    return decks, errors


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a deck file (printed by ``attention-talk schema``)."""
    return Deck.model_json_schema()
