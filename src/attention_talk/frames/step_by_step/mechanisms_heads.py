"""Many heads drawn: eight designed heads as their own maps, each named by what a measure says it
does (``story.head-maps``), then their outputs as blocks concatenated and multiplied by W_O back to
the model's width (``story.concat``). The heads are ``designed_heads``: designed weights, run by the
engine on the story's sentence; their jobs are measured (``engine.heads.share``), never asserted.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from attention_talk.deck import Deck
from attention_talk.engine.costs import costs
from attention_talk.formatting import scientific
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.heads import Job, Naming, concat_data, head_maps_data, name_heads
from attention_talk.frames.kit.layout import CONTENT, box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import CounterStage, counter
from attention_talk.frames.step_by_step.designed_heads import DESIGNS, DesignedHeads, build_heads, class_of

# The note of Σ = concat · W_O (with the check) sits in the concat view's free corner: right of the
# "concatenated" label, above O (views/concat.js draws at fixed places in its box).
LAYOUT = {"maps": CONTENT, "concat": CONTENT, "note": box(660, 378, 880, 104)}
# The jobs a head is measured on, as drawn: the fixed ones, then "a word of this class before it".
CLASS_JOBS = {"adj": "the adjective", "noun": "the noun", "verb": "the verb", "prep": "the preposition"}


def _counter_field():
    return Field(default=None, description="The chapter's FLOP counter at this stage of the talk; none when "
                 "left out (a demo deck).")


class HeadMapsParams(Params):
    stage: Literal["maps", "named"]
    counter: CounterStage | None = _counter_field()


class ConcatParams(Params):
    stage: Literal["heads", "concat", "product"]
    check: bool = Field(default=False, description="Also the note comparing Σ_h Z_h·W_O,h with concat · W_O "
                        "on these heads (the engine computes both; the deck's words.notes.about).")
    counter: CounterStage | None = _counter_field()


def _counters(ctx: BuildContext, stage: CounterStage | None) -> list:
    return [] if stage is None else [counter(ctx, stage)]


@CHAPTER.figure_source
def designed_heads_figures(deck: Deck) -> dict[str, object]:
    """The words' {designed_heads} and {designed_concat_width}: how many designed heads, and the
    width of their outputs side by side (each d_v wide, the preset's, as the story's head)."""
    return {"designed_heads": len(DESIGNS), "designed_concat_width": len(DESIGNS) * costs(deck.preset).preset.d_v}


def designed(ctx: BuildContext) -> DesignedHeads:
    """The designed heads on the deck's sentence, built once per deck."""
    return ctx.cached("step-by-step.designed-heads", lambda: build_heads(ctx.story, seed=ctx.deck.story.seed))


def story_jobs(tokens: tuple[str, ...] | list[str]) -> list[Job]:
    """What a head may be doing on this sentence, each as the cells its measure averages."""
    n = len(tokens)
    later = np.arange(n)[:, None] > 0  # row 0 can read only itself: left out, as engine.heads does
    first = np.zeros((n, n), bool)
    first[1:, 0] = True
    jobs = [Job("previous token", np.eye(n, k=-1, dtype=bool)), Job("itself", np.eye(n, dtype=bool) & later),
            Job("first token", first), Job("two back", np.eye(n, k=-2, dtype=bool))]
    classes = np.array(class_of(tokens))
    before = np.tril(np.ones((n, n), bool), k=-1)  # key j < query i
    for c, name in CLASS_JOBS.items():
        jobs.append(Job(name, before & (classes == c)[None, :]))
    return jobs


def naming(ctx: BuildContext) -> Naming:
    """Every designed head scored on every job of the sentence; each named after its best."""
    return ctx.cached("step-by-step.head-jobs", lambda: name_heads(designed(ctx).weights, story_jobs(ctx.tokens)))


@CHAPTER.builder("story.head-maps", HeadMapsParams)
def head_maps(ctx: BuildContext, p: HeadMapsParams) -> FrameBody:
    """Eight designed heads' maps of the sentence; named, each by the measure it scores highest on."""
    heads = designed(ctx)
    title = f"{len(heads.designs)} heads with designed weights, one sentence"
    data = head_maps_data(title, ctx.tokens, heads.weights, naming(ctx) if p.stage == "named" else None)
    return FrameBody(widgets=[widget("head-maps", "head-maps", LAYOUT["maps"], data, kind="weights")],
                     counters=_counters(ctx, p.counter))


@CHAPTER.builder("story.concat", ConcatParams, notes=("about",))
def concat(ctx: BuildContext, p: ConcatParams) -> FrameBody:
    """The designed heads' outputs side by side, slid into one concatenation, times W_O; with ``check``,
    the largest difference between that and the sum of every head's Z_h·W_O,h (engine.multi_head)."""
    heads, names = designed(ctx), naming(ctx)
    jobs = [names.job_of(h).name for h in range(len(heads.designs))]
    data = concat_data(heads.run, ctx.tokens, ctx.focus, p.stage, jobs)
    notes = []
    if p.check:
        run = heads.run
        diff = float(np.max(np.abs(run.sum_of_heads - run.output)))
        notes.append(note("about", LAYOUT["note"], "output", checked_heads=len(run.heads),
                          difference=scientific(diff)))
    return FrameBody(widgets=[widget("concat", "concat", LAYOUT["concat"], data, kind="output")], notes=notes,
                     counters=_counters(ctx, p.counter))
