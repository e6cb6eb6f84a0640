"""Slide "Many heads": a real layer's heads side by side, their outputs summed, the same thing as
one concatenation times a stacked W_O (checked by the engine), and the cost per token.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import multi_head
from attention_talk.engine.costs import Costs
from attention_talk.formatting import count, number, scientific
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter, flop_counter
from attention_talk.frames.step_by_step.shared import preset, stages

# One note box for the slide, right of the heads (or of the real model's bars).
LAYOUT = {"heads": box(60, 120, 980, 640), "note": box(1080, 150, 460, 420),
          "real-weights": box(60, 140, 980, 280), "real-keys": box(60, 480, 980, 220)}
DEMO_HEADS = 3


class HeadsParams(Params):
    stage: Literal["many", "sum", "concat", "total", "real"]


def heads_check(ctx: BuildContext) -> dict:
    """Σ_i head_i · W_O,i against concat · W_O, computed by the engine on the story's sentence.

    Runs the designed head plus seeded random heads (DEMO_HEADS in all; 128 would need 3.7 GB of
    float64 weights for a fact that does not depend on the count).
    """
    s = ctx.story
    d, d_k = s.w_q.shape
    rng = np.random.default_rng(ctx.deck.story.seed + 1)
    extra = DEMO_HEADS - 1
    std = 1 / np.sqrt(d)
    w_q = np.hstack([s.w_q, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_k)
    w_k = np.hstack([s.w_k, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_k)
    w_v = np.hstack([s.w_v, rng.normal(0, std, (d, extra * d_k))])  # (d, h·d_v)
    w_o = np.vstack([s.w_o, rng.normal(0, 1 / np.sqrt(d_k), (extra * d_k, d))])  # (h·d_v, d)
    mh = multi_head(s.x, w_q, w_k, w_v, w_o, heads=DEMO_HEADS, causal=True)
    diff = float(np.max(np.abs(mh.sum_of_heads - mh.output)))
    return {"heads": DEMO_HEADS, "max_abs_difference": diff, "concat_shape": list(mh.concat.shape),
            "w_o_shape": list(w_o.shape), "output_shape": list(mh.output.shape)}


def _many(ctx: BuildContext) -> FrameBody:
    return FrameBody(counters=[counter(ctx, "w_o")], notes=[note("about", LAYOUT["note"])])  # the deck's figures


def _sum(ctx: BuildContext) -> FrameBody:
    return FrameBody(counters=[counter(ctx, "heads")], notes=[note("about", LAYOUT["note"], "output")])


def _concat(ctx: BuildContext) -> FrameBody:
    chk = heads_check(ctx)  # the widths are the deck's figures: {d_v}, {concat_width}, {d_model}
    return FrameBody(counters=[counter(ctx, "heads")], notes=[note(
        "about", LAYOUT["note"], "output", checked_heads=chk["heads"],
        difference=scientific(chk["max_abs_difference"]))])


def _total(ctx: BuildContext) -> FrameBody:
    c, n = preset(ctx), len(ctx.tokens)
    v = flop_counter(c, n, "per_token")
    return FrameBody(counters=[counter(ctx, "per_token")], notes=[note(
        "about", LAYOUT["note"], formula=c.flops_per_token().formula, flops=int(v.value))])


def _millions(x: int) -> str:
    return f"{number(x / 1e6, 1)} M"


def _real_bars(c: Costs) -> list:
    """Plain multi-head against MLA (weights per layer) and against DSA (keys read per query)."""
    p = c.preset
    if p.mla is None:
        return []
    wq = sum(r * k for name, (r, k) in c.mla_matrices().items() if name.startswith("wq"))
    weights = [int(c.weights_attention().value), int(c.mla_weights().value), wq]
    bars = [widget("weight-bars", "real-weights", LAYOUT["real-weights"], kind="weight", data={
        "title": "projection weights, one layer", "labels": ["multi-head", "MLA", "MLA's W_Q"],
        "values": [float(v) for v in weights], "digits": 0, "highlight": 1, "sum": None,
        "value_labels": [_millions(v) for v in weights]})]
    if p.dsa_top_k and p.max_positions:
        read = [p.max_positions, p.dsa_top_k]
        bars.append(widget("weight-bars", "real-keys", LAYOUT["real-keys"], kind="neutral", data={
            "title": f"keys each query reads, at {count(p.max_positions)} tokens", "labels": ["every token", "DSA"],
            "values": [float(v) for v in read], "digits": 0, "highlight": 1, "sum": None,
            "value_labels": [count(v) for v in read]}))
    return bars


def _real(ctx: BuildContext) -> FrameBody:
    """What the real model does differently: MLA's projections and scores, DSA's top-k reading (the
    chapter's preset has them; their totals are the deck's figures {mla_weights}, {dsa_top_k} …)."""
    c = preset(ctx)
    mla = c.preset.mla
    assert mla is not None  # the chapter's presets all have MLA
    return FrameBody(counters=[counter(ctx, "per_token")], widgets=_real_bars(c), notes=[note(
        "about", LAYOUT["note"], nope=mla.qk_nope_head_dim, rope=mla.qk_rope_head_dim)])


STAGES = stages(HeadsParams, {"many": _many, "sum": _sum, "concat": _concat, "total": _total, "real": _real})


def _heads_data(ctx: BuildContext, stage: str) -> dict:
    c = preset(ctx)
    pr = c.preset
    return {"heads": pr.heads, "d_model": pr.d_model, "d_k": pr.d_k, "d_v": pr.d_v, "n": len(ctx.tokens),
            "stage": stage, "per_head_weights": int(4 * c.weights_per_head("W_Q").value),
            "all_weights": int(c.weights_attention().value)}


@CHAPTER.builder("story.heads", HeadsParams, notes=("about",))
def many_heads(ctx: BuildContext, p: HeadsParams) -> FrameBody:
    """128 heads, each with its own matrices; their outputs summed = concat × one big W_O."""
    body = STAGES[p.stage](ctx)
    if p.stage != "real":  # the real model's step compares figures instead
        body.widgets.insert(0, widget("heads", "heads", LAYOUT["heads"], _heads_data(ctx, p.stage)))
    return body
