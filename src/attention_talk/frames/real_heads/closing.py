"""Slides "Same and different" (``real.compare``) and "Sources" (``real.sources``): what carries
over from chapters 1–2, what is new in a real model, the lab with this sentence preloaded, and the
papers behind the chapter.

What stays and what is new are lists of wide cards down the band; the lab's link and the reader's
turn stand in a column beside the row of A the lab opens on; the sources share the band in rows."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlencode

import numpy as np

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import NoParams, Params
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box, rows
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import all_weights, analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name, focus_index, token_labels

LAYOUT = {"cards": box(LEFT, TOP, 1040, BOTTOM - TOP), "top": box(LEFT, TOP, 660, 200),
          "link": box(LEFT, TOP + 240, 660, 280), "row": box(780, TOP, RIGHT - 780, BOTTOM - TOP)}
SOURCES = ("src0", "src1", "src2", "src3", "src4")  # the notes of the sources slide, one per source


class CompareParams(Params):
    stage: Literal["same", "different", "next"]


def lab_link(ctx: BuildContext) -> str:
    """The lab with the deck's sentence and the map's head preloaded (layer and head 0-based)."""
    an = analysis(ctx)
    job = an.jobs["previous"]
    return "/lab?" + urlencode({"text": an.sentence.text, "source": "model", "layer": job.layer, "head": job.head})


def _same(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    w = all_weights(an.sentence)  # (L, h, n, n)
    n = w.shape[-1]
    above = w[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]]
    wo = ctx.model.weights.layers[0].wo
    c = ctx.model.config
    return FrameBody(widgets=[cards("same", LAYOUT["cards"], [
        card("sums", kind="weights", maps=w.shape[0] * w.shape[1], strays=f"{np.abs(w.sum(-1) - 1).max():.0e}"),
        card("mask", kind="mask", above=above.size, weight=f"{above.max():g}"),
        card("wo", kind="output", wo_rows=wo.shape[0], wo_cols=wo.shape[1], mixed=c.heads),
    ], columns=1)])


def _different(ctx: BuildContext) -> FrameBody:
    j = analysis(ctx).jobs
    c = ctx.model.config
    return FrameBody(widgets=[cards("diff", LAYOUT["cards"], [
        card("rope", kind="query"),
        card("gqa", kind="key", queries=c.heads, shared=c.kv_heads, smaller=c.heads // c.kv_heads),
        card("depth", kind="neutral", depth=c.layers, prev_at=j["previous"].layer, ind_at=j["induction"].layer),
    ], columns=1)])


def _next(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    job = an.jobs["previous"]
    top = cards("next", LAYOUT["top"], [card("turn", kind="weights")], columns=1)
    link = widget("link", "lab", LAYOUT["link"], {
        "title": "open the lab with this sentence", "text": f"“{an.sentence.text}”", "href": lab_link(ctx),
        "detail": f"{display_name(ctx.model.config)}, layer {job.layer}, head {job.head}: the map of this chapter"},
        kind="weights")
    m = focus_index(ctx, an.sentence.tokens)
    row = an.sentence.head(job.layer, job.head).weights[m]  # (n,) the row the lab's map opens on
    toks = token_labels(an.sentence.tokens)
    bars = widget("weight-bars", "labrow", LAYOUT["row"], {
        "title": f"in the lab: “{toks[m]}”, layer {job.layer}, head {job.head}", "labels": toks,
        "values": [float(v) for v in row], "scale_max": 1.0, "digits": 2, "highlight": int(np.argmax(row)),
        "sum": float(row.sum())}, kind="weights")
    return FrameBody(widgets=[top, link, bars])


@CHAPTER.builder("real.compare", CompareParams, cards=("sums", "mask", "wo", "rope", "gqa", "depth", "turn"))
def compare(ctx: BuildContext, p: CompareParams) -> FrameBody:
    """What is the same as chapters 1–2, what is different, and the lab with this sentence."""
    return {"same": _same, "different": _different, "next": _next}[p.stage](ctx)


@CHAPTER.builder("real.sources", notes=SOURCES)
def sources(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The papers and the model card the chapter stands on, each with what it contributed."""
    c = ctx.model.config
    areas = rows(box(LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP), [1] * len(SOURCES), gap=16)
    return FrameBody(notes=[note(id, area, "neutral", model_layers=c.layers, model_heads=c.heads,
                                 model_kv_heads=c.kv_heads, model_head_dim=c.head_dim) if id == "src0" else
                            note(id, area, "neutral") for id, area in zip(SOURCES, areas, strict=True)])
