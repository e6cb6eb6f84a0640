"""Questions in the talk: a step's ``question:`` asks the audience to guess before the answer is shown.

A question asks for a pick of one kind: ``token`` (a column of a tensor's row: the key that row reads
most), ``cell`` (a cell of a map: where it is largest), ``order`` (the columns of a row, largest
first) or ``estimate`` (one cell's value, on a slider). Its answer is named, never typed: a tensor
(by name) drawn on the *reveal step*, the step right after the question, and a row (and a column)
label. When the frames are built the answer is read from that tensor's values: the question's frame
carries what may be picked (``Question``), the reveal step's frame the answer, the figures it was
read from and its derivation (``Reveal``).

A pick is a list of integers in every kind, the one encoding the player and the room protocol share:
token ``[column]``, cell ``[row, column]``, order ``[columns, largest first]`` (a permutation),
estimate ``[slider position]`` (0 … ``ESTIMATE_STEPS``).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from attention_talk.deck import Deck, typed_number
from attention_talk.formatting import number
from attention_talk.frames.primitives import Strict

ESTIMATE_STEPS = 20  # slider positions 0 … 20
MAX_ORDER = 8  # items an order question may rank
MAX_CHOICES = 24  # tokens a token question offers, rows × columns a cell question's map may have: 24 × 24
QuestionKind = Literal["token", "cell", "order", "estimate"]


class AnswerRef(BaseModel):
    """Where the answer is read: a tensor of the reveal step's frame and, by label, a row (and a column)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    tensor: str = Field(min_length=1, max_length=80, description="Name of a tensor the reveal step draws.")
    row: str | None = Field(default=None, min_length=1, max_length=80, description=(
        "A row label of it (token, order: the row whose columns are compared; estimate: the cell's row)."))
    col: str | None = Field(default=None, min_length=1, max_length=80, description="estimate: the cell's column label.")


class QuestionSpec(BaseModel):
    """A step's ``question:`` as the deck writes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: QuestionKind = Field(description="token, cell, order or estimate.")
    prompt: str = Field(min_length=1, max_length=200, description="The question's words.")
    answer: AnswerRef

    @model_validator(mode="after")
    def _answer_fits_the_kind(self) -> QuestionSpec:
        row, col = self.answer.row is not None, self.answer.col is not None
        need = {"token": (True, False), "order": (True, False), "cell": (False, False), "estimate": (True, True)}
        if (row, col) != need[self.kind]:
            wanted = {(True, False): "a row and no col", (False, False): "no row and no col",
                      (True, True): "a row and a col"}[need[self.kind]]
            raise ValueError(f"answer: a {self.kind} question names {wanted}")
        return self


class Question(Strict):
    """What a question's frame carries: what may be picked, never the answer."""

    id: str = Field(description="'<slide id>/<step>': the question step.")
    kind: QuestionKind
    prompt: str
    choices: list[str] = Field(description="token, order: the row's column labels; cell: the map's row labels.")
    cols: list[str] = Field(default_factory=list, description="cell: the map's column labels.")
    marks: list[str] = Field(default_factory=list, description="estimate: the value of each slider position.")


class Reveal(Strict):
    """What the reveal step's frame carries: the question, its answer as a pick, and why."""

    question: Question
    answer: list[int] = Field(description="The right pick, in the pick encoding (module docstring).")
    text: str = Field(description="The answer in words, e.g. 'old' or 'row dog, column old'.")
    figures: list[list[str]] = Field(description=(
        "The figure of every pick: token, order: one row (each column's value); cell: the map; estimate: "
        "one row, the distance of each slider position from the answer."))
    derivation: list[str] = Field(description="Where the answer comes from, line by line.")
    tensor: str = Field(default="", description="The reveal step's tensor the answer was read from.")
    cell: list[int] = Field(default_factory=list, description=(
        "The answer's cell in that tensor, [row, column] in its own indices (the drawing outlines it)."))


def check_questions(deck: Deck) -> list[str]:
    """Every step's ``question:`` validates, types no number and has a step after it to reveal it."""
    errors: list[str] = []
    last = (len(deck.slides) - 1, len(deck.slides[-1].steps) - 1)
    for i, slide in enumerate(deck.slides):
        for j, step in enumerate(slide.steps):
            if step.question is None:
                continue
            at = f"slide {i + 1} ({slide.id}) › step {j + 1} › field question"
            try:
                spec = QuestionSpec.model_validate(step.question)
            except ValidationError as exc:
                errors.extend(f"{at}" + "".join(f".{x}" for x in e["loc"])
                              + f": {e['msg'].removeprefix('Value error, ')}" for e in exc.errors())
                continue
            if (n := typed_number(spec.prompt)) is not None:
                errors.append(f"{at}.prompt: the number {n!r} is typed into the words; a question's answer "
                              "and figures come from the engine")
            if (i, j) == last:
                errors.append(f"{at}: the last step of the deck cannot ask; the step after a question reveals it")
            elif (slide.steps[j + 1] if j + 1 < len(slide.steps) else deck.slides[i + 1].steps[0]).question:
                errors.append(f"{at}: the next step reveals this question, so it cannot ask one itself")
    return errors


def attach_questions(deck: Deck, frames: dict[str, list]) -> list[str]:
    """Put each question on its step's frame and its answer on the next step's (in place); the errors."""
    order = [(slide.id, j) for slide in deck.slides for j in range(len(slide.steps))]
    errors: list[str] = []
    for k, (slide_id, j) in enumerate(order):
        i = deck.slide_index(slide_id)
        step = deck.slides[i].steps[j]
        if step.question is None or k + 1 >= len(order) or len(frames.get(slide_id, ())) <= j:
            continue
        spec = QuestionSpec.model_validate(step.question)
        to_id, to_j = order[k + 1]
        at = f"slide {i + 1} ({slide_id}) › step {j + 1} › field question.answer"
        if len(frames.get(to_id, ())) <= to_j:
            continue
        try:
            question, reveal = answer(spec, f"{slide_id}/{j + 1}", frames[to_id][to_j])
        except ValueError as exc:
            errors.append(f"{at}: {exc}")
            continue
        frames[slide_id][j] = frames[slide_id][j].model_copy(update={"question": question})
        frames[to_id][to_j] = frames[to_id][to_j].model_copy(update={"reveal": reveal})
    return errors


def _tensor(frame, name: str):
    for t in frame.tensors:
        if t.name == name:
            return t
    drawn = ", ".join(t.name for t in frame.tensors) or "none"
    raise ValueError(f"tensor: the reveal step ({frame.slide} step {frame.step}) draws no tensor {name!r}; "
                     f"it draws: {drawn}")


def _label(labels: list[str], label: str, what: str, tensor) -> int:
    if label not in labels:
        raise ValueError(f"{what}: {tensor.name!r} has no {what} {label!r}; its {what}s: {', '.join(labels)}")
    return labels.index(label)


def _val(v: float | None) -> float:
    return -math.inf if v is None else float(v)


def answer(spec: QuestionSpec, qid: str, frame) -> tuple[Question, Reveal]:
    """The question and its reveal, read from the reveal frame's tensor ``spec.answer.tensor``."""
    t = _tensor(frame, spec.answer.tensor)
    ref = spec.answer
    fmt = lambda v: number(v, t.digits)  # noqa: E731 - the tensor's own digits
    if spec.kind == "cell":
        return _cell(spec, qid, t, fmt)
    r = _label(t.rows, ref.row, "row", t)
    row = [_val(v) for v in t.values[r]]
    if spec.kind == "estimate":
        return _estimate(spec, qid, t, r, _label(t.cols, ref.col, "column", t), fmt)
    limit = MAX_ORDER if spec.kind == "order" else MAX_CHOICES
    if len(t.cols) > limit:
        raise ValueError(f"row: a {spec.kind} question offers at most {limit} columns; {t.name!r} shows {len(t.cols)}")
    ranked = sorted(range(len(row)), key=lambda c: (-row[c], c))
    q = Question(id=qid, kind=spec.kind, prompt=spec.prompt, choices=list(t.cols))
    listing = ", ".join(f"{t.cols[c]} {fmt(t.values[r][c])}" for c in range(len(row)))
    if spec.kind == "token":
        best = ranked[0]
        return q, Reveal(question=q, answer=[best], text=t.cols[best], figures=[[fmt(v) for v in t.values[r]]],
                         tensor=t.name, cell=[t.row_index[r], t.col_index[best]],
                         derivation=[f"{t.label}, row {ref.row}: {listing}.",
                                     f"The largest is {t.cols[best]}: {fmt(t.values[r][best])}."])
    chain = " › ".join(f"{t.cols[c]} {fmt(t.values[r][c])}" for c in ranked)
    return q, Reveal(question=q, answer=ranked, text=" › ".join(t.cols[c] for c in ranked),
                     figures=[[fmt(v) for v in t.values[r]]],
                     tensor=t.name, cell=[t.row_index[r], t.col_index[ranked[0]]],
                     derivation=[f"{t.label}, row {ref.row}: {listing}.", f"Largest first: {chain}."])


def _cell(spec: QuestionSpec, qid: str, t, fmt) -> tuple[Question, Reveal]:
    if len(t.rows) > MAX_CHOICES or len(t.cols) > MAX_CHOICES:
        raise ValueError(f"tensor: a cell question's map is at most {MAX_CHOICES} × {MAX_CHOICES}; "
                         f"{t.name!r} shows {len(t.rows)} × {len(t.cols)}")
    cells = [(r, c) for r in range(len(t.rows)) for c in range(len(t.cols))]
    ranked = sorted(cells, key=lambda rc: (-_val(t.values[rc[0]][rc[1]]), rc))
    (r, c), (r2, c2) = ranked[0], ranked[1] if len(ranked) > 1 else ranked[0]
    q = Question(id=qid, kind="cell", prompt=spec.prompt, choices=list(t.rows), cols=list(t.cols))
    return q, Reveal(question=q, answer=[r, c], text=f"row {t.rows[r]}, column {t.cols[c]}",
                     tensor=t.name, cell=[t.row_index[r], t.col_index[c]],
                     figures=[[fmt(v) for v in row] for row in t.values],
                     derivation=[f"{t.label}: the largest of its {len(cells)} cells is row {t.rows[r]}, "
                                 f"column {t.cols[c]}: {fmt(t.values[r][c])}.",
                                 f"The next is row {t.rows[r2]}, column {t.cols[c2]}: {fmt(t.values[r2][c2])}."])


def _estimate(spec: QuestionSpec, qid: str, t, r: int, c: int, fmt) -> tuple[Question, Reveal]:
    value = t.values[r][c]
    if value is None:
        raise ValueError(f"col: {t.name!r} at row {t.rows[r]}, column {t.cols[c]} is −∞; estimate a number")
    finite = [v for row in t.values for v in row if v is not None]
    lo, hi = (0.0, 1.0) if t.kind == "weights" else (min(finite), max(finite))
    if hi <= lo:
        raise ValueError(f"tensor: every value of {t.name!r} is the same; nothing to estimate")
    marks = [lo + (hi - lo) * k / ESTIMATE_STEPS for k in range(ESTIMATE_STEPS + 1)]
    best = min(range(len(marks)), key=lambda k: (abs(marks[k] - value), k))
    q = Question(id=qid, kind="estimate", prompt=spec.prompt, choices=[], marks=[fmt(m) for m in marks])
    off = [fmt(m - value) if round(m - value, t.digits) <= 0 else "+" + fmt(m - value) for m in marks]
    return q, Reveal(question=q, answer=[best], text=fmt(value), figures=[off],
                     tensor=t.name, cell=[t.row_index[r], t.col_index[c]],
                     derivation=[f"{t.label}, row {t.rows[r]}, column {t.cols[c]}: {fmt(value)}.",
                                 f"The slider runs from {fmt(lo)} to {fmt(hi)}"
                                 + (" (a weight is between 0 and 1)." if t.kind == "weights"
                                    else f" (the smallest and largest values {t.name} shows).")])


def question_shape(question: dict[str, Any] | Question) -> tuple[str, int, int]:
    """(kind, choices, columns) of a question: what a pick of it must fit (rooms check picks with it)."""
    q = question if isinstance(question, Question) else Question.model_validate(question)
    n = len(q.marks) if q.kind == "estimate" else len(q.choices)
    return q.kind, n, len(q.cols)


def pick_fits(shape: tuple[str, int, int], pick: list[int]) -> str | None:
    """Why ``pick`` is not a pick of a question of this shape, or None when it is."""
    kind, n, cols = shape
    if kind == "order":
        return None if sorted(pick) == list(range(n)) else f"an order of the {n} items, each once (0 … {n - 1})"
    if kind == "cell":
        ok = len(pick) == 2 and 0 <= pick[0] < n and 0 <= pick[1] < cols
        return None if ok else f"[row, column] with row 0 … {n - 1} and column 0 … {cols - 1}"
    return None if len(pick) == 1 and 0 <= pick[0] < n else f"[one number 0 … {n - 1}]"


def bucket(pick: list[int]) -> str:
    """A pick as the key its count is kept under ('3', '1,2', '2,0,1')."""
    return ",".join(str(p) for p in pick)
