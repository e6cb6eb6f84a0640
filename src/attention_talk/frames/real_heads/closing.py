"""Slides "Same and different" (``real.compare``) and "Sources" (``real.sources``): what carries
over from chapters 1–2, what is new in a real model, the lab with this sentence preloaded, and the
papers behind the chapter.

What stays is a column of cards beside two real maps that keep chapter one's rules (rows add up
to 1, nothing above the diagonal); what is new is a row of cards over each job's best head layer
by layer (depth, as a heatmap); the lab's link and the reader's turn stand in a column beside the
map the lab opens on; the sources share the band in rows."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlencode

import numpy as np

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import NoParams, Params
from attention_talk.frames.kit.heads import heatmap_data
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box, rows
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import MEASURE_NAMES, all_weights, analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name, token_labels
from attention_talk.frames.widgets.mechanisms_heads import HeadMap, HeadMapsData

CARDS_H = 270  # the row of what is new
LAYOUT = {"cards": box(LEFT, TOP, 480, BOTTOM - TOP), "maps": box(600, TOP, RIGHT - 600, BOTTOM - TOP),
          "new": box(LEFT, TOP, RIGHT - LEFT, CARDS_H),
          "depth": box(LEFT, TOP + CARDS_H + 30, RIGHT - LEFT, BOTTOM - TOP - CARDS_H - 30),
          "top": box(LEFT, TOP, 660, 200), "link": box(LEFT, TOP + 240, 660, 280),
          "labmap": box(780, TOP, RIGHT - 780, BOTTOM - TOP)}
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
    shown = [an.jobs["previous"], an.jobs["first"]]  # two heads whose maps differ, under the same rules
    maps = widget("head-maps", "rules", LAYOUT["maps"], HeadMapsData(
        title="two real heads, one set of rules",
        tokens=token_labels(an.sentence.tokens), columns=2, named=False, labels="upright",
        heads=[HeadMap(title=f"layer {j.layer}, head {j.head}", weights=w[j.layer, j.head].tolist()) for j in shown]),
        kind="weights")
    return FrameBody(widgets=[cards("same", LAYOUT["cards"], [
        card("sums", kind="weights", maps=w.shape[0] * w.shape[1], strays=power_of_ten(np.abs(w.sum(-1) - 1).max())),
        card("mask", kind="mask", above=above.size, weight=f"{above.max():g}"),
        card("wo", kind="output", wo_rows=wo.shape[0], wo_cols=wo.shape[1], mixed=c.heads),
    ], columns=1), maps])


def power_of_ten(x: float) -> str:
    """A tiny number as one digit times a power of ten, in one word: 4e-16 → '4×10⁻¹⁶'."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.0e}".split("e")
    return f"{mantissa}×10" + str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def depth_grid(an) -> np.ndarray:
    """Each job's best head in every layer: (jobs, L), the largest of that layer's scores."""
    return np.stack([j.grid.max(axis=1) for j in an.jobs.values()])


def _different(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    j = an.jobs
    c = ctx.model.config
    grid = depth_grid(an)
    depth = widget("heatmap", "depth", LAYOUT["depth"], heatmap_data(
        "each job's best head, layer by layer", grid, rows=[MEASURE_NAMES[m] for m in j],
        cols=[str(k) for k in range(grid.shape[1])], row_axis="job", col_axis="layer", stage="grid"), kind="weights")
    return FrameBody(widgets=[cards("diff", LAYOUT["new"], [
        card("rope", kind="query"),
        card("gqa", kind="key", queries=c.heads, shared=c.kv_heads, smaller=c.heads // c.kv_heads),
        card("depth", kind="neutral", depth=c.layers, prev_at=j["previous"].layer, ind_at=j["induction"].layer),
    ], columns=3), depth])


def _next(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    job = an.jobs["previous"]
    top = cards("next", LAYOUT["top"], [card("turn", kind="weights")], columns=1)
    link = widget("link", "lab", LAYOUT["link"], {
        "title": "open the lab with this sentence", "text": f"“{an.sentence.text}”", "href": lab_link(ctx),
        "detail": f"{display_name(ctx.model.config)}, layer {job.layer}, head {job.head}: the map of this chapter"},
        kind="weights")
    lab_map = widget("head-maps", "labmap", LAYOUT["labmap"], HeadMapsData(
        title="the map the lab opens on", tokens=token_labels(an.sentence.tokens), columns=1, named=False,
        labels="upright",
        heads=[HeadMap(title=f"layer {job.layer}, head {job.head}",
                       weights=an.sentence.head(job.layer, job.head).weights.tolist())]), kind="weights")
    return FrameBody(widgets=[top, link, lab_map])


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
