"""Slide "A real map" (``real.map``): one sentence, one head, built like chapter 1's map: scores
q·k, scaled by 1/√d_k, the causal mask, softmax row by row. The head is the previous-token
measure's top scorer; every cell explains itself (q and k are after RoPE, as the model uses them).

The map is as wide as its token labels need (no two column labels meet) and as tall as its numbers
need; the softmaxed row comes below it on the same columns, the note keeps the column at the right."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.attention import causal_mask
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Note
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_scores, derive_weights
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import focus_index, head_identity, picked, sourced, token_labels

# One box for the map on every step (it never moves, so the row below can come and go beside it):
# 11 columns of 92 units clear the longest token label; 11 rows of 37 keep cell numbers at 25 units.
GUTTER = 121  # the row labels' width, the same for the map and its row, so their columns line up
MAP_W, MAP_H = 1140, 74 + 11 * 37
LAYOUT = {"map": box(LEFT, TOP, MAP_W, MAP_H), "row": box(LEFT, BOTTOM - 120, MAP_W, 120),
          "note": box(LEFT + MAP_W + 40, TOP, RIGHT - LEFT - MAP_W - 40, BOTTOM - TOP)}


class MapParams(Params):
    stage: Literal["scores", "scaled", "masked", "row", "weights"]


def head_maps(ctx: BuildContext):
    an = analysis(ctx)
    job = an.jobs["previous"]
    return an, job, an.sentence.head(job.layer, job.head)


def _scores_tensor(ctx: BuildContext, stage: str, area):
    an, job, maps = head_maps(ctx)
    toks = token_labels(an.sentence.tokens)
    n, d_k = maps.q.shape
    scale = 1 / np.sqrt(d_k)
    mask = causal_mask(n)
    values = {"scores": maps.scores, "scaled": maps.scores * scale, "masked": maps.scores * scale + mask}[stage]
    label = {"scores": "S = Q·Kᵀ", "scaled": f"S / √{d_k}", "masked": f"S / √{d_k} + M"}[stage]
    t = tensor("map", f"{label}, layer {job.layer}, head {job.head}", "scores" if stage != "masked" else "mask",
               values, area, rows=toks, cols=toks, max_rows=n, max_cols=n, digits=1, heat=True, gutter=GUTTER,
               identity=head_identity(job.layer, job.head))
    t = derive_scores(t, maps.q, maps.k, row_names=toks, col_names=toks,
                      scale=scale if stage != "scores" else None, mask=mask if stage == "masked" else None)
    return sourced(t, an.model_name, an.sentence.text, job.layer, job.head, stage)


def _note(stage: str, ctx: BuildContext) -> Note:
    an, _job, maps = head_maps(ctx)
    n, d_k = maps.q.shape
    toks = token_labels(an.sentence.tokens)
    m = focus_index(ctx, an.sentence.tokens)
    w = maps.weights
    figures = {  # each step's text is its deck's words.notes.why
        "scores": {"tokens": n, "cells": n * n, "width": d_k},
        "scaled": {"width": d_k, "root": f"{np.sqrt(d_k):g}"},
        "masked": {"hidden": n * (n - 1) // 2},
        "row": {"word": toks[m], "allowed": m + 1, "total": f"{w[m].sum():.3f}"},
        "weights": {"word": toks[m], "largest": f"{w[m].max():.2f}", "on": toks[int(w[m].argmax())],
                    "share": f"{an.jobs['previous'].best:.0%}",
                    "low": f"{min(w[i, i - 1] for i in range(1, n)):.2f}",
                    "high": f"{max(w[i, i - 1] for i in range(1, n)):.2f}"},
    }[stage]
    return note("why", LAYOUT["note"], "weights" if stage in ("row", "weights") else "scores", **figures)


def _row(ctx: BuildContext) -> FrameBody:
    an, job, maps = head_maps(ctx)
    toks = token_labels(an.sentence.tokens)
    n = len(toks)
    m = focus_index(ctx, an.sentence.tokens)
    masked = _scores_tensor(ctx, "masked", LAYOUT["map"])
    masked.highlight = Highlight(rows=[m])
    logits = maps.scores / np.sqrt(maps.q.shape[1]) + causal_mask(n)
    row = picked("row", f"softmax of the row of “{toks[m]}”", "weights", maps.weights, LAYOUT["row"],
                 rows=[m], cols=list(range(n)), row_names=toks, col_names=toks)
    row.gutter = GUTTER
    row = sourced(derive_weights(row, logits, row_names=toks, col_names=toks), an.model_name, an.sentence.text,
                  job.layer, job.head)
    return FrameBody(tensors=[masked, row], notes=[_note("row", ctx)])


def _weights(ctx: BuildContext) -> FrameBody:
    an, job, maps = head_maps(ctx)
    toks = token_labels(an.sentence.tokens)
    n = len(toks)
    logits = maps.scores / np.sqrt(maps.q.shape[1]) + causal_mask(n)
    t = tensor("map", f"A = softmax(S / √d_k + M), layer {job.layer}, head {job.head}", "weights", maps.weights,
               LAYOUT["map"], rows=toks, cols=toks, max_rows=n, max_cols=n, digits=2, heat=True, gutter=GUTTER,
               identity=head_identity(job.layer, job.head))
    t.highlight = Highlight(cells=[(i, i - 1) for i in range(1, n)])  # what the share on the previous token averages
    t = sourced(derive_weights(t, logits, row_names=toks, col_names=toks), an.model_name, an.sentence.text,
                job.layer, job.head)
    return FrameBody(tensors=[t], notes=[_note("weights", ctx)])


@CHAPTER.builder("real.map", MapParams, notes=("why",))
def real_map(ctx: BuildContext, p: MapParams) -> FrameBody:
    """One head's map of the sentence: scores, scaled, masked, one row's softmax, every row."""
    if p.stage == "row":
        return _row(ctx)
    if p.stage == "weights":
        return _weights(ctx)
    return FrameBody(tensors=[_scores_tensor(ctx, p.stage, LAYOUT["map"])], notes=[_note(p.stage, ctx)])
