"""Section 4, the equation with shapes (``walk.equation``): the four steps with their shapes, the
full formula, why scores are divided by √d_k (two histograms), parameters versus activations."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import costs, scores, softmax
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_projection, derive_weights
from attention_talk.frames.kit.layout import LEFT, box, columns
from attention_talk.frames.kit.mechanisms import scaling_spread
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import FEATURES, W_K, W_Q, W_V, Sentence
from attention_talk.frames.walkthrough.shared import (
    band,
    cards,
    causal_river,
    counter,
    equation_widget,
    sentences,
)
from attention_talk.frames.widgets.mechanisms import ScalingStage

LAYOUT = {
    "steps": band(120, 250), "formula": band(390, 130), "row": band(410, 320),
    **{f"legend_{n}": b for n, b in zip("QKVA", columns(band(530, 230), [1, 1, 1, 2.2], gap=40), strict=True)},
    "histogram": box(LEFT, 125, 1480, 530), "why": box(160, 665, 1280, 90),
    "memory": band(120, 230), "wq": box(LEFT, 380, 720, 380), "q": box(820, 380, 720, 380),
}


BLANK = [""]  # the formula's matrices drawn at their shapes, unlabelled (the cards above name the sizes)
HIST_BINS = 64
ROW_KEYS = 8  # the keys of the one query whose softmax flattens beside the histogram


class EquationParams(Params):
    stage: Literal["steps", "formula", "raw", "scaled", "params"]
    equation: str | None = None


def _steps(n: int, d_k: int) -> list[dict]:
    """The four steps' cards, with the river sentence's {tokens} and {key_width}."""
    return [card(id, kind=kind, tokens=n, key_width=d_k)
            for id, kind in (("scores", "scores"), ("scale", "scores"), ("mask", "mask"), ("softmax", "weights"))]


def _one_row(ctx: BuildContext) -> Tensor:
    """The four steps applied to one row of the causal head: “boat” (so the mask shows)."""
    s = causal_river(ctx)
    a, i, toks = s.attention, s.index("boat"), list(s.tokens)
    rows = np.vstack([a.scores[i], a.scaled[i], a.masked[i], a.weights[i]])  # (4, n)
    names = ["1 · S", "2 · S / √d_k", "3 · + M", "4 · A"]
    how = ["q(boat) · k", f"S × 1/√d_k = S × {number(a.scale, 3)}", "plus 0 up to “boat”, −∞ after it",
           "softmax over the row"]
    t = tensor("onerow", "the four steps on the row of “boat”", "scores", rows, LAYOUT["row"], rows=names,
               cols=toks, digits=2)
    return derive_copy(t, lambda r, c: (how[r], None if rows[r, c] == -np.inf else float(rows[r, c])),
                       formula="S, S / √d_k, + M, softmax", title=lambda r, c: f"{names[r]}, “{toks[c]}”")


def _four_steps(ctx: BuildContext, p: EquationParams) -> FrameBody:
    river, _ = sentences(ctx)
    n, d_k = river.q.shape
    body = FrameBody(widgets=[cards("four", LAYOUT["steps"], _steps(n, d_k), columns=4, arrows=True)])
    if p.stage == "steps":
        body.tensors.append(_one_row(ctx))
    return body


def _formula(ctx: BuildContext, p: EquationParams) -> FrameBody:
    """The formula over the four steps, and under it the matrices it names, at their true shapes (the
    causal head of the river sentence; a cell too small for its number shows it on focus)."""
    body = _four_steps(ctx, p)
    body.widgets.append(equation_widget("eq", LAYOUT["formula"], p.equation or "attention"))
    s = causal_river(ctx)
    toks, a, dims = list(s.tokens), s.attention, range(s.q.shape[1])
    for name, arr, w, kind in (("Q", s.q, W_Q, "query"), ("K", s.k, W_K, "key"), ("V", s.v, W_V, "value")):
        t = tensor(name, name, kind, arr, LAYOUT[f"legend_{name}"], rows=BLANK * len(toks), cols=BLANK * len(dims))
        body.tensors.append(derive_projection(t, s.x, w, x_name="x", w_name=f"W_{name}", row_names=toks))
    at = tensor("A", "A", "weights", a.weights, LAYOUT["legend_A"], rows=BLANK * len(toks), cols=BLANK * len(toks),
                digits=2, heat=True)
    body.tensors.append(derive_weights(at, a.masked, row_names=toks, col_names=toks))
    return body


def _score_samples(seed: int, d_k: int = 128, n: int = 64):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n, d_k))  # (n, d_k)  unit-variance components
    k = rng.standard_normal((n, d_k))  # (n, d_k)
    raw = scores(q, k)  # (n, n)
    return raw, raw / np.sqrt(d_k), d_k


def _variance(ctx: BuildContext, stage: ScalingStage) -> FrameBody:
    """Every raw and scaled dot product on ONE histogram axis with the same bins (the ``scaling``
    kind: the raw histogram squeezes by 1/√d_k into the scaled one), and one query's softmax over
    a few keys flattening; the note reads the variance and the mean top weight."""
    raw, scaled, dk = _score_samples(ctx.deck.story.seed)
    keys = [f"k{i + 1}" for i in range(ROW_KEYS)]
    data = scaling_spread(raw, 1 / np.sqrt(dk), 0, np.zeros(ROW_KEYS), keys, stage=stage, bins=HIST_BINS,
                          raw_label=f"{count(raw.size)} dot products q·k, d_k = {dk} · std {{spread}}",
                          scaled_label=f"scaled q·k / √{dk} · std {{spread}}",
                          row_title=f"query 1 meets {ROW_KEYS} keys: softmax", peaks="each")
    shown, digits = (scaled, 2) if stage == "scaled" else (raw, 0)
    top = float(np.mean(np.max(softmax(shown), axis=1)))  # mean largest weight per row
    why = note("why", LAYOUT["why"], "scores", components=dk, variance=number(shown.var(), digits),
               top=number(top, 2))  # the raw and the scaled step each give their text
    return FrameBody(widgets=[widget("scaling", "scaling", LAYOUT["histogram"], data, kind="scores")], notes=[why])


def _raw(ctx: BuildContext, p: EquationParams) -> FrameBody:
    return _variance(ctx, "raw")


def _scaled(ctx: BuildContext, p: EquationParams) -> FrameBody:
    return _variance(ctx, "scaled")


def _params(ctx: BuildContext, p: EquationParams) -> FrameBody:
    river, _ = sentences(ctx)
    n, d_k = river.q.shape
    wq = costs(ctx.deck.preset).weights_per_matrix("W_Q")
    memory = cards("pa", LAYOUT["memory"], [
        card("parameters", kind="weight", weights=count(wq.value), formula=wq.formula.split(" = ")[1]),
        card("activations", kind="neutral", tokens=n, key_width=d_k),
    ], columns=2, arrows=True)
    return FrameBody(widgets=[memory], counters=[counter("wq", wq)], tensors=_one_of_each(river))


def _one_of_each(river: Sentence) -> list[Tensor]:
    """Under the cards, one parameter and one activation: the head's W_Q (designed here, the same for
    every input) and the queries it makes from this sentence."""
    feats = list(FEATURES)
    wt = tensor("W_Q", "W_Q, a parameter (designed here)", "query", W_Q, LAYOUT["wq"], rows=feats,
                cols=["1", "2", "3"], digits=1)
    derive_copy(wt, lambda r, c: ("a parameter: learned in a real model, designed here", float(W_Q[r, c])),
                formula="parameter", title=lambda r, c: f"W_Q[{feats[r]}, {c + 1}]")
    toks = list(river.tokens)
    qt = tensor("Q", "Q = X·W_Q, activations of this input", "query", river.q, LAYOUT["q"], rows=toks,
                cols=["1", "2", "3"])
    return [wt, derive_projection(qt, river.x, W_Q, x_name="x", w_name="W_Q", row_names=toks)]


STAGES = {"steps": _four_steps, "formula": _formula, "raw": _raw, "scaled": _scaled, "params": _params}


@CHAPTER.builder("walk.equation", EquationParams, notes=("why",),
                 cards=("scores", "scale", "mask", "softmax", "parameters", "activations"))
def equation(ctx: BuildContext, p: EquationParams) -> FrameBody:
    """The four steps with shapes, the full formula, why √d_k, parameters vs activations."""
    return STAGES[p.stage](ctx, p)
