"""Slides "Same and different" (``real.compare``) and "Sources" (``real.sources``): what carries
over from chapters 1–2, what is new in a real model, the lab with this sentence preloaded, and the
papers behind the chapter."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlencode

import numpy as np

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Note
from attention_talk.frames.kit.chapter import NoParams, Params
from attention_talk.frames.kit.layout import box, rows
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.real_heads.analysis import all_weights, analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name

LAYOUT = {"cards": box(60, 140, 1480, 420), "top": box(60, 130, 1480, 250), "link": box(60, 420, 1480, 260)}
SOURCES = [
    ("Allal et al. 2025, SmolLM2 (arXiv:2502.02737); SmolLM2-135M model card (Hugging Face, Apache-2.0)",
     "The model whose heads this chapter opens: {layers} layers, {heads} query heads sharing {kv_heads} "
     "key/value heads, {head_dim} numbers per head."),
    ("Su et al. 2021, RoFormer (arXiv:2104.09864)", "Rotary position embedding: q and k turned by angles that "
     "grow with position, so scores depend on the offset."),
    ("Ainslie et al. 2023, GQA (arXiv:2305.13245)", "Grouped-query attention: groups of query heads share one "
     "key and value head."),
    ("Xiao et al. 2023, StreamingLLM (arXiv:2309.17453)", "Attention sinks: much attention lands on the first "
     "tokens, whatever they mean."),
    ("Olsson et al. 2022, In-context Learning and Induction Heads (transformer-circuits.pub)", "Induction "
     "heads: on a repeated sequence, attend to the token after the earlier occurrence."),
]


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
        {"title": "rows add up to 1", "kind": "weights",
         "body": f"in all {w.shape[0] * w.shape[1]} maps of the sentence, the furthest a row sum strays from 1 "
                 f"is {np.abs(w.sum(-1) - 1).max():.0e}"},
        {"title": "the causal mask", "kind": "mask",
         "body": f"every one of the {above.size:,} weights above a diagonal is {above.max():g}: no token reads ahead"},
        {"title": "W_O mixes the heads", "kind": "output",
         "body": f"each layer's W_O is {wo.shape[0]} × {wo.shape[1]}: the {c.heads} heads' outputs side by side, "
                 "mixed back into one row"},
    ], columns=3)])


def _different(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    c = ctx.model.config
    j = an.jobs
    return FrameBody(widgets=[cards("diff", LAYOUT["cards"], [
        {"title": "RoPE", "kind": "query", "body": "positions turn q and k instead of being added to the input; "
                                                   "scores see distances"},
        {"title": "GQA", "kind": "key", "body": f"{c.heads} query heads share {c.kv_heads} key/value heads: a "
                                                f"{c.heads // c.kv_heads}× smaller KV cache"},
        {"title": "depth", "kind": "neutral",
         "body": f"{c.layers} layers: the previous-token head sits in layer {j['previous'].layer}, the induction "
                 f"head in layer {j['induction'].layer}, reading what earlier layers wrote"},
    ], columns=3)])


def _next(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    job = an.jobs["previous"]
    top = cards("next", LAYOUT["top"], [
        {"title": "your turn", "kind": "weights",
         "body": "change the sentence, pick any layer and head, and click any cell for its derivation"}], columns=1)
    link = widget("link", "lab", LAYOUT["link"], {
        "title": "open the lab with this sentence", "text": f"“{an.sentence.text}”", "href": lab_link(ctx),
        "detail": f"{display_name(ctx.model.config)}, layer {job.layer}, head {job.head}: the map of this chapter"},
        kind="weights")
    return FrameBody(widgets=[top, link])


@CHAPTER.builder("real.compare", CompareParams)
def compare(ctx: BuildContext, p: CompareParams) -> FrameBody:
    """What is the same as chapters 1–2, what is different, and the lab with this sentence."""
    return {"same": _same, "different": _different, "next": _next}[p.stage](ctx)


@CHAPTER.builder("real.sources")
def sources(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The papers and the model card the chapter stands on, each with what it contributed."""
    c = ctx.model.config
    figs = {"layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads, "head_dim": c.head_dim}
    areas = rows(box(100, 130, 1400, 600), [1] * len(SOURCES), gap=16)
    return FrameBody(notes=[Note(id=f"src{i}", box=area, kind="neutral", text=f"{title}. {what.format(**figs)}")
                            for i, ((title, what), area) in enumerate(zip(SOURCES, areas, strict=True))])
