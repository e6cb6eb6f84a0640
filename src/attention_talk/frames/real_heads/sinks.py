"""Slide "Why sinks exist" (``real.sinks``): softmax must give a row weights that add up to 1, so a
head with nothing to read parks them on the first token. One row of the first-token measure's top
scorer, with the first token and without it (its score masked too, softmax again).

The rule's cards stand in a column beside the sink head's weight on the first token from every row
(bars down the band); the row's bars then take the left of the band. Beside them, with the first
token: the length of each token's value vector (why parking there adds little); without it: the
head's whole map once the first key is masked (every row's weight lands elsewhere). The note stays under
that picture."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.attention import causal_mask, softmax
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, focus_index, token_labels
from attention_talk.frames.widgets.mechanisms_heads import HeadMap, HeadMapsData

SIDE = 820  # where the picture beside the row's bars starts
LAYOUT = {"cards": box(LEFT, TOP, 620, BOTTOM - TOP), "first": box(740, TOP, RIGHT - 740, BOTTOM - TOP),
          "bars": box(LEFT, TOP, SIDE - LEFT - 60, BOTTOM - TOP),
          "side": box(SIDE, TOP, RIGHT - SIDE, BOTTOM - TOP - 160),
          "note": box(SIDE, BOTTOM - 140, RIGHT - SIDE, 140)}


class SinkParams(Params):
    stage: Literal["rule", "with", "without"]


def sink_rows(ctx: BuildContext) -> dict:
    """The focus row of the sink head: its weights, and softmax again with the first key masked."""
    an = analysis(ctx)
    job = an.jobs["first"]
    maps = an.sentence.head(job.layer, job.head)
    n, d_k = maps.q.shape
    m = focus_index(ctx, an.sentence.tokens)
    logits = (maps.scores / np.sqrt(d_k) + causal_mask(n))[m]  # (n,)
    without = logits.copy()
    without[0] = -np.inf
    norms = np.linalg.norm(maps.v, axis=1)  # (n,) length of each token's value vector
    return {"job": job, "m": m, "toks": token_labels(an.sentence.tokens), "with": maps.weights[m],
            "first": maps.weights[:, 0], "map": maps.weights, "map_without": without_first(maps.scores / np.sqrt(d_k)),
            "without": softmax(without), "text": an.sentence.text, "norms": norms,
            "v_ratio": float(norms[0] / norms[1:].mean())}


def without_first(scaled: np.ndarray) -> np.ndarray:
    """Every row's weights once the first key is masked too: softmax over the scaled scores of keys
    1 … i (causal). The first row has no other key: it keeps nothing, zeros."""
    n = len(scaled)
    logits = scaled + causal_mask(n)
    logits[:, 0] = -np.inf
    out = np.zeros((n, n))
    out[1:] = softmax(logits[1:])
    return out


def _bars(d: dict, which: str):
    m = d["m"]
    values = d[which][: m + 1]
    title = (f"row of “{d['toks'][m]}”, layer {d['job'].layer}, head {d['job'].head}" if which == "with" else
             "the same row, first token masked")
    return widget("weight-bars", "sinkbars", LAYOUT["bars"], {
        "title": title, "labels": d["toks"][: m + 1], "values": [float(v) for v in values], "scale_max": 1.0,
        "digits": 2, "highlight": 0 if which == "with" else int(np.argmax(values)), "sum": float(values.sum()),
        **({} if which == "with" else {"future": [i == 0 for i in range(m + 1)], "masked_text": "masked"})},
        kind="weights")


def _rule(ctx: BuildContext) -> FrameBody:
    d = sink_rows(ctx)
    job, toks = d["job"], d["toks"]
    first = widget("weight-bars", "firstcol", LAYOUT["first"], {
        "title": f"weight on “{toks[0]}” from every row, layer {job.layer}, head {job.head}", "labels": toks,
        "values": [float(v) for v in d["first"]], "scale_max": 1.0, "digits": 2, "highlight": None, "sum": None},
        kind="weights")
    return FrameBody(widgets=[cards("rule", LAYOUT["cards"], [
        card("softmax", kind="weights"),
        card("parks", kind="weights", layer=job.layer, head=job.head, score=f"{job.best:.0%}"),
    ], columns=1, active=1), first])


def _with(ctx: BuildContext, which: str) -> FrameBody:
    d = sink_rows(ctx)
    w = d[which]
    if which == "with":  # the text picked by what the model's value vectors show
        why = note("why", LAYOUT["note"], "weights", key="why" if d["v_ratio"] < 1 else "why_not_smaller",
                   also=("why_not_smaller",), parked=f"{w[0]:.0%}", length=f"{d['v_ratio']:.2f}")
    else:
        why = note("why", LAYOUT["note"], "weights", largest=f"{w.max():.0%}", word=d["toks"][int(w.argmax())])
    return FrameBody(widgets=[_bars(d, which), _lengths(d) if which == "with" else _maps(d)], notes=[why])


def _lengths(d: dict):
    """How long each token's value vector is (what a weight multiplies): the first one is short."""
    m = d["m"]
    return widget("weight-bars", "lengths", LAYOUT["side"], {
        "title": "length of each token's value vector |v|", "labels": d["toks"][: m + 1],
        "values": [float(v) for v in d["norms"][: m + 1]], "scale_max": None, "digits": 2, "highlight": 0,
        "sum": None}, kind="value")


def _maps(d: dict):
    """The sink head's whole map with the first key masked: every row lands somewhere else (with it,
    the map is one bright column: the example of the slide before)."""
    job = d["job"]
    return widget("head-maps", "spread", LAYOUT["side"], HeadMapsData(
        title="every row, first token masked", tokens=d["toks"], columns=1, named=False, labels="upright",
        heads=[HeadMap(title=f"layer {job.layer}, head {job.head}", weights=d["map_without"].tolist())]),
        kind="weights")


@CHAPTER.builder("real.sinks", SinkParams, notes=("why", "why_not_smaller"), cards=("softmax", "parks"))
def sinks(ctx: BuildContext, p: SinkParams) -> FrameBody:
    """Why rows park weight on the first token; one row with and without it."""
    if p.stage == "rule":
        return _rule(ctx)
    return _with(ctx, p.stage)
