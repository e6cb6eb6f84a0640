"""Slide "A query is a dense layer": the token's d numbers in, its d_k-number question out, each
output a neuron wired to every input.
"""

from __future__ import annotations

from typing import Literal

from attention_talk.formatting import number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.shared import preset, stages

LAYOUT = {"dense": box(60, 120, 1000, 640), "note": box(1100, 200, 440, 330)}
SHOWN_TERMS = 3  # products of neuron 1 written out in the "neuron" note


class DenseParams(Params):
    stage: Literal["network", "neuron", "weights"]


def _network(ctx: BuildContext) -> dict[str, object]:
    d, d_k = ctx.story.w_q.shape
    return {"inputs": d, "word": ctx.tokens[ctx.focus], "outputs": d_k}


def _neuron(ctx: BuildContext) -> dict[str, object]:
    s, focus = ctx.story, ctx.focus
    x, q, w = s.x[focus], s.q[focus], s.w_q  # (d,), (d_k,), (d, d_k)
    terms = " + ".join(f"{number(x[i])}×{number(w[i, 0], 3)}" for i in range(SHOWN_TERMS))
    return {"inputs": w.shape[0], "terms": terms, "output": number(q[0])}


def _weights(ctx: BuildContext) -> dict[str, object]:
    d, d_k = ctx.story.w_q.shape
    wc = preset(ctx).weights_per_head("W_Q")
    return {"neurons": d_k, "inputs": d, "weights": int(wc.value), "formula": wc.formula}


FIGURES = stages(DenseParams, {"network": _network, "neuron": _neuron, "weights": _weights})


def _network_data(ctx: BuildContext, stage: str) -> dict:
    """A few of the inputs and outputs with their values; the widget draws the rest as ellipses."""
    s, focus = ctx.story, ctx.focus
    x, q = s.x[focus], s.q[focus]
    d, d_k = s.w_q.shape
    return {
        "inputs": [{"index": i + 1, "value": float(x[i])} for i in [0, 1, 2, 3, 4, d - 1]], "n_in": d,
        "outputs": [{"index": j + 1, "value": float(q[j])} for j in [0, 1, 2, 3, d_k - 1]], "n_out": d_k,
        "focus_output": 0 if stage == "neuron" else None, "all_links": stage == "weights",
        "token": ctx.tokens[focus],
    }


@CHAPTER.builder("story.dense", DenseParams, notes=("about",))
def dense_layer(ctx: BuildContext, p: DenseParams) -> FrameBody:
    """Token in (d numbers), question out (d_k): every output a neuron wired to every input."""
    return FrameBody(
        widgets=[widget("dense", "dense", LAYOUT["dense"], _network_data(ctx, p.stage), kind="query")],
        notes=[note("about", LAYOUT["note"], "query",  # W_Q and its weights: the query role
                    **FIGURES[p.stage](ctx))])
