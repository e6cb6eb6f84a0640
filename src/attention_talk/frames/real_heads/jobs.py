"""Slide "Heads have jobs" (``real.jobs``): every head of every layer scored on three measures
(``engine.heads``: previous token, first token, induction), shown as a heatmap over every head (the
``heatmap`` kind: colour per head, its number on hover or focus) with the top scorer outlined; then
that head's map on an example, its cell flown into the map (one continuity identity). The numbers
decide which head is shown.

Heatmap and example take the same box across the band and the note the same strip under it, so the
note does not move as the slide goes from the heatmap to its head."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import heads as measures
from attention_talk.engine.attention import causal_mask
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_weights
from attention_talk.frames.kit.heads import heatmap_data
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import MEASURE_NAMES, Analysis, Job, analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, head_identity, picked, sourced, token_labels

NOTE_H = 110  # two lines of a note across the band
FIGURE = box(LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP - NOTE_H - 30)
LAYOUT = {"grid": FIGURE, "grid_note": box(LEFT, BOTTOM - NOTE_H, RIGHT - LEFT, NOTE_H), "example": FIGURE,
          "note": box(LEFT, BOTTOM - NOTE_H, RIGHT - LEFT, NOTE_H), "cards": box(LEFT, TOP, 620, BOTTOM - TOP),
          "scores": box(740, TOP, RIGHT - 740, 300)}
Measure = Literal["previous", "first", "induction"]
WHAT = {"previous": "on the token just before", "first": "on the first token",
        "induction": "on the token after its earlier copy"}  # short: a grid's title fits the stage's width


class JobsParams(Params):
    stage: Literal["grid", "example", "summary"]
    measure: Measure = "previous"


def targets(job: Job) -> list[tuple[int, int]]:
    """The (query, key) cells a measure averages."""
    n = len(job.tokens)
    if job.measure == "previous":
        return [(i, i - 1) for i in range(1, n)]
    if job.measure == "first":
        return [(i, 0) for i in range(1, n)]
    q, k = measures.induction_targets(n // 2)
    return list(zip(q.tolist(), k.tolist(), strict=True))


def _run_of(an: Analysis, job: Job):
    return an.repeated if job.measure == "induction" else an.sentence


def _grid(ctx: BuildContext, measure: str) -> FrameBody:
    """Every head scored on ``measure`` as a heatmap (heads down, layers across, the number on hover or
    focus), the top scorer outlined; its cell carries the head's identity, so it flies into the map of
    the next step."""
    an = analysis(ctx)
    job = an.jobs[measure]
    run = _run_of(an, job)
    L, h = job.grid.shape
    data = heatmap_data(f"{MEASURE_NAMES[measure]}: share of attention {WHAT[measure]}", job.grid.T,
                        rows=[str(i) for i in range(h)], cols=[str(i) for i in range(L)], row_axis="head",
                        col_axis="layer", stage="winner", winner_identity=head_identity(job.layer, job.head))
    best = note("best", LAYOUT["grid_note"], "weights", text=run.text.strip(), heads_scored=L * h,
                layer=job.layer, head=job.head, score=f"{job.best:.0%}")
    return FrameBody(widgets=[widget("heatmap", "heatmap", LAYOUT["grid"], data, kind="weights")], notes=[best])


def _example(ctx: BuildContext, measure: str) -> FrameBody:
    """The top scorer's map; for induction the second copy's rows over the first copy's columns only
    (a row whose target falls in the second copy keeps its row, its target undrawn). The note gives
    the mean and the spread of the outlined cells, the ones drawn."""
    an = analysis(ctx)
    job = an.jobs[measure]
    run = _run_of(an, job)
    maps = run.head(job.layer, job.head)
    toks = token_labels(run.tokens)
    n = len(toks)
    rows = list(range(n // 2, n)) if measure == "induction" else list(range(n))
    cols = list(range(n // 2)) if measure == "induction" else list(range(n))
    t = picked("example", f"layer {job.layer}, head {job.head}: {MEASURE_NAMES[measure]}", "weights", maps.weights,
               LAYOUT["example"], rows=rows, cols=cols, row_names=toks, col_names=toks)
    outlined = [(q, k) for q, k in targets(job) if q in rows and k in cols]
    t.highlight = Highlight(cells=outlined)
    t.identity = head_identity(job.layer, job.head)
    logits = maps.scores / np.sqrt(maps.q.shape[1]) + causal_mask(n)  # (n, n) what softmax turned into A
    t = sourced(derive_weights(t, logits, row_names=toks, col_names=toks), an.model_name, run.text, job.layer,
                job.head)
    w = np.array([maps.weights[q, k] for q, k in outlined])
    figures = {"score": f"{job.best:.0%}", "mean": f"{w.mean():.0%}", "low": f"{w.min():.2f}",
               "high": f"{w.max():.2f}", "outlined": len(outlined), "rows": len(rows)}
    return FrameBody(tensors=[t], notes=[note("why", LAYOUT["note"], "weights", **figures)])


def _summary(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    items = [card(m, kind="weights", layer=j.layer, head=j.head, score=f"{j.best:.0%}", heads_scored=j.grid.size)
             for m, j in an.jobs.items()]  # one card per measure, its words in the deck
    bars = widget("weight-bars", "bestscores", LAYOUT["scores"], {
        "title": f"each job's top score, of all {next(iter(an.jobs.values())).grid.size} heads",
        "labels": [m for m in an.jobs], "values": [j.best for j in an.jobs.values()],  # one word: the bars' gutter
        "scale_max": 1.0, "digits": 2, "highlight": None, "sum": None,
        "value_labels": [f"{j.best:.0%}" for j in an.jobs.values()]}, kind="weights")
    return FrameBody(widgets=[cards("jobs", LAYOUT["cards"], items, columns=1, kind="weights"), bars])


@CHAPTER.builder("real.jobs", JobsParams, notes=("best", "why"), cards=tuple(MEASURE_NAMES))
def jobs(ctx: BuildContext, p: JobsParams) -> FrameBody:
    """Score grids of every head on a measure; the top scorer's map on an example; the three jobs."""
    if p.stage == "grid":
        return _grid(ctx, p.measure)
    if p.stage == "example":
        return _example(ctx, p.measure)
    return _summary(ctx)
