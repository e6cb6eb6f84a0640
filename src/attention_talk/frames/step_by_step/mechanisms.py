"""Chapter 1's mechanisms drawn as they happen (issue 30), on the story model's causal head: softmax
of the focus row as a process (``story.softmax-process``), the mask M added to the scaled scores
(``story.mask-added``) and the scores' spread before and after ÷ √d_k (``story.scaling``). Each step
is one stage of its widget; the view moves from the stage before. The numbers are the engine's
(``causal_attention``: the same scores, mask and weights the map and softmax slides show)."""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from attention_talk.engine import padding_mask
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.mechanisms import mask_addition, scaling_spread, softmax_process
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import CounterStage, counter
from attention_talk.frames.step_by_step.shared import causal_attention
from attention_talk.frames.widgets.mechanisms import MaskStage, ScalingStage, SoftmaxStage

# The widget fills the band between the title and the caption; its note sits under it.
# (The note is softmax.py's NOTE: chapter 1's softmax slide keeps one note box on every step.)
LAYOUT = {"widget": box(60, 125, 1480, 520), "note": box(200, 645, 1200, 110)}




def _counter_field():
    return Field(default=None, description="The chapter's FLOP counter at this stage of the talk; none when "
                 "left out (a demo deck).")


def _identity_field():
    return Field(default=None, description="The continuity identity of what the widget draws (the row, the "
                 "scores), shared with a tensor of the step before or after so it travels; none when left out.")



class SoftmaxProcessParams(Params):
    stage: SoftmaxStage
    row: str | None = Field(default=None, description="The query token whose row is shown; the deck's focus "
                            "when left out.")
    counter: CounterStage | None = _counter_field()
    identity: str | None = _identity_field()


class MaskAddedParams(Params):
    stage: MaskStage
    padding: int = Field(default=0, ge=0, description="Keys at the end of the sentence also blocked as padding "
                         "(engine.padding_mask), as in a batch of shorter sentences; 0: the causal mask alone.")
    scores: Literal["scaled", "raw"] = Field(default="scaled", description="Which scores M is added to: "
                                             "Q·Kᵀ / √d_k (the engine's masked map) or Q·Kᵀ before the scaling "
                                             "(−∞ stays −∞ either way).")
    counter: CounterStage | None = _counter_field()
    identity: str | None = _identity_field()


class ScalingParams(Params):
    stage: ScalingStage
    counter: CounterStage | None = _counter_field()


def _counters(ctx: BuildContext, stage: CounterStage | None) -> list:
    return [] if stage is None else [counter(ctx, stage)]


def _row_index(ctx: BuildContext, row: str | None) -> int:
    if row is None:
        return ctx.focus
    if row not in ctx.tokens:
        raise ValueError(f"row {row!r} is not a token of the story sentence {ctx.tokens}")
    return ctx.tokens.index(row)


@CHAPTER.builder("story.softmax-process", SoftmaxProcessParams, notes=("about",))
def softmax_process_step(ctx: BuildContext, p: SoftmaxProcessParams) -> FrameBody:
    """Softmax of one row as a process: its scaled scores, minus the row max, e^x, their sum, divided."""
    att, toks = causal_attention(ctx), ctx.tokens
    i = _row_index(ctx, p.row)
    data = softmax_process(att.masked[i], toks, stage=p.stage, title=f"the row of “{toks[i]}”", identity=p.identity)
    best = int(np.argmax(att.masked[i]))
    return FrameBody(
        widgets=[widget("softmax", "softmax-process", LAYOUT["widget"], data, kind="weights")],
        counters=_counters(ctx, p.counter),
        notes=[note("about", LAYOUT["note"], "weights", word=toks[i], best=toks[best], row_max=number(data.row_max, 2),
                    total=number(data.total, 2), weight=number(data.weights[best], 2),
                    blocked=sum(s is None for s in data.scores))])


@CHAPTER.builder("story.mask-added", MaskAddedParams, notes=("about",))
def mask_added_step(ctx: BuildContext, p: MaskAddedParams) -> FrameBody:
    """The mask M (0 or −∞) slides onto the scores (scaled, or raw Q·Kᵀ) and is added: the blocked cells
    become −∞."""
    att, toks = causal_attention(ctx), ctx.tokens
    n = len(toks)
    if p.padding >= n:
        raise ValueError(f"padding must leave at least one key: the sentence has {n} tokens, got {p.padding}")
    mask = att.mask + padding_mask(n - p.padding, total=n) if p.padding else att.mask  # (n, n)
    what = f"causal + {count(p.padding)} padding" if p.padding else "causal"
    scores, name = (att.scaled, f"S / √{count(att.q.shape[1])}") if p.scores == "scaled" else (att.scores, "Q·Kᵀ")
    data = mask_addition(scores, mask, toks, toks, stage=p.stage, scores_label=name, mask_label=f"M: {what}",
                         result_label=f"{name} + M", digits=1, identity=p.identity)
    return FrameBody(
        widgets=[widget("mask", "mask-added", LAYOUT["widget"], data, kind="mask")],
        counters=_counters(ctx, p.counter),
        notes=[note("about", LAYOUT["note"], "mask", word=toks[ctx.focus],
                    blocked=int(np.isneginf(mask).sum()), cells=n * n)])


@CHAPTER.builder("story.scaling", ScalingParams, notes=("about",))
def scaling_step(ctx: BuildContext, p: ScalingParams) -> FrameBody:
    """Every score before and after ÷ √d_k on one axis, and the focus row's softmax flattening."""
    att, toks, focus = causal_attention(ctx), ctx.tokens, ctx.focus
    d_k = att.q.shape[1]
    data = scaling_spread(att.scores, att.scale, focus, att.mask[focus], toks, stage=p.stage,
                          raw_label="Q·Kᵀ · spread {spread}", scaled_label=f"Q·Kᵀ / √{count(d_k)} · spread {{spread}}",
                          row_title=f"weights of “{toks[focus]}”")
    top = int(np.argmax(data.scaled_weights))
    return FrameBody(
        widgets=[widget("scaling", "scaling", LAYOUT["widget"], data, kind="scores")],
        counters=_counters(ctx, p.counter),
        notes=[note("about", LAYOUT["note"], "scores", divisor=number(data.divisor, 1), best=toks[top],
                    raw_top=number(data.raw_weights[top], 2), scaled_top=number(data.scaled_weights[top], 2))])

