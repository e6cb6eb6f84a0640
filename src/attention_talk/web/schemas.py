"""Request and response models, for validation and the OpenAPI schema (and schemathesis, which
checks every response against it). Routes that send precomputed bytes name these in
``responses=`` instead of validating their output again; the store builds those bytes from these
same models (``Manifest.of``, ``DeckSummary.of``, ``SlideFrames``), so the schema and the bytes
cannot drift.

Every JSON request body is a ``StrictBody``: a boolean must be a JSON boolean, a number a JSON number
(an integer is fine where a float is asked for), a string a string; nothing is coerced, and unknown
fields are refused. (Query and path parameters arrive as strings and are parsed as usual.)"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from attention_talk.frames.contract import DerivPart, Frame
from attention_talk.lab.sizes import DEFAULT_INCLUDE, NUMBER_FORMS, TENSORS, head_width

if TYPE_CHECKING:
    from attention_talk.deck import Deck

Matrix = list[list[float | None]]
MAX_TOKENS = 64
MAX_D_MODEL = 512
TensorName = Literal["q", "k", "v", "scores", "masked", "weights", "output", "concat", "final"]
assert get_args(TensorName) == TENSORS, "TensorName must list lab.sizes.TENSORS, in order"
NumberForm = Literal["scaled", "decimal"]
assert get_args(NumberForm) == NUMBER_FORMS, "NumberForm must list lab.sizes.NUMBER_FORMS, in order"


# ---------------------------------------------------------------------------------------------
# requests


class StrictBody(BaseModel):
    """The base of every JSON request body: strict types, no unknown fields."""

    model_config = ConfigDict(strict=True, extra="forbid")


class AttentionRequest(StrictBody):
    """Tokens and settings for the illustrative chain: one multi-head attention layer with seeded
    random projections."""

    tokens: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None, min_length=1, max_length=MAX_TOKENS, description="The tokens, in order.")
    text: str | None = Field(default=None, min_length=1, max_length=4000,
                             description="Alternative to tokens: text split on spaces.")
    d_model: int = Field(default=16, ge=1, le=MAX_D_MODEL, description="Model width d.")
    heads: int = Field(default=2, ge=1, le=64, description="Number of heads h.")
    d_k: int | None = Field(default=None, ge=1, le=MAX_D_MODEL,
                            description="Per-head width; defaults to d_model / heads.")
    causal: bool = Field(default=True, description="Apply the causal mask.")
    temperature: float = Field(default=1.0, gt=0, le=100, description="Softmax temperature.")
    seed: int = Field(default=0, ge=0, le=2**32 - 1, description="Seed for the random weights.")
    digits: int = Field(default=4, ge=1, le=15, description="Decimal places kept of every number returned "
                        "(4: every weight to ±0.00005, a compact response; ask for more for exact row sums).")
    numbers: NumberForm = Field(
        default="decimal", description="How the tensors' numbers are written. decimal (the default): the "
        "numbers rounded to digits decimals; scaled: integers in units of 10^-digits, 0.1234 as 1234 with 4 "
        "digits (divide by 10^digits; about half the bytes, quicker to write: the lab asks for it). Either "
        "way −∞ (a masked score) is null.")
    include: list[TensorName] = Field(
        default_factory=lambda: list(DEFAULT_INCLUDE), max_length=2 * len(TENSORS),
        description="The tensors to return: per head any of q, k, v, scores, masked, weights, output; for "
                    "the layer concat (the heads side by side) and final (the output, `output` in the "
                    f"response). Default: {', '.join(DEFAULT_INCLUDE)} (the attention maps). The "
                    "response may hold at most ATTENTION_TALK_MAX_RESPONSE_NUMBERS numbers (default "
                    "300,000); a larger request gets a 422 naming the fields to reduce.")

    @field_validator("temperature")
    @classmethod
    def _finite(cls, v: float) -> float:
        if not math.isfinite(v):
            raise ValueError("must be a finite number")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> AttentionRequest:
        if (self.tokens is None) == (self.text is None):
            raise ValueError("give exactly one of tokens or text")
        if self.text is not None:
            words = self.text.split()
            if not words:
                raise ValueError("text: must contain at least one token")
            if len(words) > MAX_TOKENS:
                raise ValueError(f"text: at most {MAX_TOKENS} tokens, got {len(words)}")
            if max(len(w) for w in words) > 40:
                raise ValueError("text: each token must be at most 40 characters")
        if self.d_k is None and self.d_model % self.heads:
            raise ValueError(f"heads: {self.heads} heads do not divide d_model = {self.d_model}; "
                             "choose a divisor or give d_k")
        if self.d_k is not None and self.heads * self.d_k > 4096:
            raise ValueError(f"d_k: heads × d_k must be at most 4096, got {self.heads * self.d_k}")
        return self

    @property
    def token_list(self) -> list[str]:
        return self.tokens if self.tokens is not None else (self.text or "").split()

    def chain_settings(self) -> dict[str, Any]:
        """The chain's settings as the plain arguments of ``lab.illustrative_chain`` (d_k resolved)."""
        return {"d_model": self.d_model, "heads": self.heads, "d_k": head_width(self.d_model, self.heads, self.d_k),
                "causal": self.causal, "temperature": self.temperature, "seed": self.seed}


# ---------------------------------------------------------------------------------------------
# responses


class Error(BaseModel):
    """Every 4xx: ``message`` names the field and the reason."""

    message: str = Field(description="Which field, and why: 'heads: 3 heads do not divide d_model = 10'.")
    detail: Any = Field(description="The reason again, or pydantic's list of errors.")


class Health(BaseModel):
    status: str


class DeckSummary(BaseModel):  # one row of the decks index (/api/decks and the index page)
    id: str
    title: str
    subtitle: str
    slides: int
    steps: int
    needs_model: str | None = Field(default=None, description=(
        "Set when the deck's numbers come from the real model and it is not installed: why, and how to "
        "install it. The deck's URLs answer 503 with the same message until it is."))

    @classmethod
    def of(cls, deck: Deck, needs_model: str | None = None) -> DeckSummary:
        return cls(id=deck.id, title=deck.title, subtitle=deck.subtitle, slides=len(deck.slides),
                   steps=deck.step_count, needs_model=needs_model)


class SlideSummary(BaseModel):
    id: str
    number: int
    title: str
    template: str
    notes: str
    steps: int
    captions: list[str]


class Manifest(BaseModel):  # what the player needs to know about a deck: the talk page's JSON twin
    id: str
    title: str
    subtitle: str
    preset: str
    show_progress: bool
    steps: int
    slides: list[SlideSummary]

    @classmethod
    def of(cls, deck: Deck) -> Manifest:
        return cls(id=deck.id, title=deck.title, subtitle=deck.subtitle, preset=deck.preset,
                   show_progress=deck.show_progress, steps=deck.step_count, slides=[
                       SlideSummary(id=s.id, number=i + 1, title=s.title, template=s.template, notes=s.notes,
                                    steps=len(s.steps), captions=[st.caption for st in s.steps])
                       for i, s in enumerate(deck.slides)])


class SlideFrames(BaseModel):
    deck: str
    slide: str
    frames: list[Frame]


class StepFrame(BaseModel):
    """One step's frame of a slide (``step`` from 1), the same as ``frames[step - 1]`` of its
    SlideFrames: what a step opened by its link draws before the rest of its slide is fetched."""

    deck: str
    slide: str
    step: int
    frame: Frame


class SlideDerivations(BaseModel):
    """The parts of every cell derivation of one slide's frames, kept out of the frames themselves
    (they are most of their bytes): ``steps[k][tensor][i]`` is the ``parts`` of cell ``i`` of that
    tensor's ``derivation.cells`` in frame ``k + 1``."""

    deck: str
    slide: str
    steps: list[dict[str, list[list[DerivPart]]]]


class Count(BaseModel):
    """A number with the formula that gives it and where that formula comes from."""

    value: int | float
    formula: str
    source: str
    unit: str = ""
    label: str = ""


class Costs(BaseModel):
    preset: str
    n: int
    counts: dict[str, Count]


def _only(name: str, what: str) -> Any:
    return Field(default=None, description=f"{what} Present only when include names {name!r}.")


class Head(BaseModel):
    """One head's tensors: only those the request's include names are present."""

    head: int = Field(description="The head, 0-based: its index in per_head, as `head` of "
                                  "/api/attention/derivation and the lab's ?head=.")
    q: Matrix | None = _only("q", "Queries X·W_Q, (n, d_k).")
    k: Matrix | None = _only("k", "Keys X·W_K, (n, d_k).")
    v: Matrix | None = _only("v", "Values X·W_V, (n, d_k).")
    scores: Matrix | None = _only("scores", "Q·Kᵀ, (n, n).")
    masked: Matrix | None = _only("masked", "Scaled scores with the mask; null where the causal mask put −∞.")
    weights: Matrix | None = _only("weights", "softmax(masked / temperature), rows sum to 1, (n, n).")
    output: Matrix | None = _only("output", "weights · V, (n, d_k).")


class AttentionChain(BaseModel):
    """The chain for the request's tokens; the tensors are those named in ``include``."""

    tokens: list[str]
    d_model: int
    heads: int
    d_k: int
    digits: int
    numbers: NumberForm = Field(description="decimal: each tensor's numbers rounded to digits decimals; "
                                "scaled: integers in units of 10^-digits (divide by 10^digits).")
    include: list[TensorName] = Field(description="The tensors this response carries, in TENSORS order.")
    scale: float
    per_head: list[Head]
    concat: Matrix | None = _only("concat", "The heads' outputs side by side, (n, h·d_k).")
    output: Matrix | None = _only("final", "The layer's output concat · W_O, (n, d_model).")
    costs: dict[str, Count]


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": Error, "description": why} for code, why in [
        (400, "The body is not UTF-8 or cannot be read"),
        (404, "Unknown deck, slide or path"),
        (413, "The body is larger than ATTENTION_TALK_MAX_BODY_BYTES"),
        (422, "A field is missing, of the wrong type or out of range"),
    ]
}
BUSY: dict[int | str, dict[str, Any]] = {
    code: {"model": Error, "description": why} for code, why in [
        (408, "The body did not arrive within ATTENTION_TALK_BODY_TIMEOUT seconds"),
        (503, "Every slot for this work is busy (ATTENTION_TALK_ATTENTION_CONCURRENCY); retry after "
              "the Retry-After header's seconds"),
    ]
}


# live rooms


class RoomRequest(StrictBody):
    """Start a live room on a deck."""

    deck: str = Field(min_length=1, max_length=80, description="Deck id, e.g. attention-step-by-step.")


class RoomCreated(BaseModel):
    """A new room: its code (read it aloud), the presenter's secret (keep it: it drives the room),
    the audience's link and the phone remote's link (the secret in its fragment)."""

    code: str
    presenter_secret: str
    join_url: str
    remote_url: str


class RemoteQrRequest(StrictBody):
    secret: str = Field(min_length=1, max_length=128, description="The room's presenter secret.")
