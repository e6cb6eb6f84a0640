"""Decks: the talk's content, one YAML file per deck in ``slides/``, validated with pydantic.

This module reads and checks a deck's structure only. ``attention_talk.frames.load_deck`` is what
callers use: it also checks each step's builder and parameters and fills the placeholders, and
returns a deck ready to build.

A deck holds slides; a slide holds steps; a step is one key press: a caption (what the audience
reads), a narration (what a student alone needs, and what screen readers announce) and a frame
spec naming the frame builder that computes what is drawn. No number is ever written here.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

log = logging.getLogger(__name__)
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built in

Slug = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)]
TEMPLATES = ("matrix", "title", "text", "sources")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FrameSpec(_Strict):
    """Which frame builder draws a step, with its parameters (checked against the builder)."""

    builder: str = Field(description="Name of a frame builder, e.g. 'story.map' "
                         "(`attention-talk builders` lists them).")
    params: dict[str, Any] = Field(default_factory=dict, description="The builder's parameters.")


class Step(_Strict):
    caption: str = Field(min_length=1, max_length=200, description="Short line the audience reads.")
    narration: str = Field(min_length=1, description="Fuller explanation for students and screen readers.")
    frame: FrameSpec | None = Field(default=None, description="What is drawn; none for text-only steps.")


class Slide(_Strict):
    id: Slug
    title: str = Field(min_length=1, max_length=120)
    template: str = Field(default="matrix", description=f"The slide's kind: one of {', '.join(TEMPLATES)}.")
    notes: str = Field(min_length=1, description="Speaker notes.")
    equations: dict[str, str] = Field(default_factory=dict, description=(
        "Named LaTeX equations, rendered as MathML on the server; a frame's 'equation' widget shows one."))
    steps: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _known_template(self) -> Slide:
        if self.template not in TEMPLATES:
            raise ValueError(f"unknown template {self.template!r}; known: {', '.join(TEMPLATES)}")
        return self

    @model_validator(mode="after")
    def _equations_convert(self) -> Slide:
        for name in self.equations:
            self.mathml(name)  # raises on LaTeX that latex2mathml cannot read
        return self

    def mathml(self, name: str) -> str:
        """The equation ``name`` as MathML markup (latex2mathml's own output, safe to insert)."""
        from latex2mathml.converter import convert

        try:
            return convert(self.equations[name], display="block")
        except Exception as exc:  # latex2mathml raises several exception types
            raise ValueError(f"equation {name!r} is not valid LaTeX: {exc}") from None


class Story(_Strict):
    """The designed inputs the deck's frames are computed from."""

    sentence: str = Field(min_length=1, description="Tokens separated by spaces.")
    seed: int = Field(default=0, ge=0, description="Seed for numpy.random.default_rng.")
    focus: str | None = Field(default=None, description="The token the story follows, e.g. 'dog'.")

    @property
    def tokens(self) -> list[str]:
        return self.sentence.split()


class Deck(_Strict):
    id: Slug
    title: str = Field(min_length=1)
    subtitle: str = ""
    preset: str = Field(default="deepseek-v3.2", description="Cost-model preset for the counters.")
    story: Story
    show_progress: bool = Field(default=True, description="Show the progress bar and counter.")
    slides: list[Slide] = Field(min_length=1)

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
    """A deck file that does not validate; ``errors`` are readable one-line messages."""

    def __init__(self, path: Path, errors: list[str]):
        self.path = path
        self.errors = errors
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


def parse_deck(data: Any, path: Path) -> Deck:
    """Validate already-parsed YAML; raise DeckError naming slide, step and field."""
    if not isinstance(data, dict):
        raise DeckError(path, ["the file must hold a mapping (id, title, story, slides)"])
    try:
        return Deck.model_validate(data)
    except ValidationError as exc:
        errors = [f"{_describe_location(data, tuple(e['loc']))}: {e['msg']}" for e in exc.errors()]
        raise DeckError(path, errors) from None


def read_deck(path: Path) -> Deck:
    """Read one deck file and validate its structure."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise DeckError(path, [f"cannot read the file: {exc}"]) from None
    return parse_deck(data, path)


def deck_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.yaml") if p.is_file())


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
