"""Section 9, the mechanism in one view (``walk.summary``): the closing ideas, one per key press,
each beside a picture the engine computed earlier in the chapter: "bank"'s weights, the causal map
A, the nine stages with their shapes, and the two specialised heads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from attention_talk.formatting import shape
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_weights
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import bars, cards, causal_river, to_right
from attention_talk.frames.walkthrough.specialists import HEAD_CARDS, picker

LAYOUT = {"cards": box(LEFT, 120, 540, 640), "visual": to_right(640, 120, 640)}
# the closing ideas in order, each a card (its words: the slide's) with its colour
IDEAS = {"retrieval": "neutral", "routing": "weights", "shapes": "neutral", "heads": "output"}
ORDER = list(IDEAS)


class SummaryParams(Params):
    stage: Literal["retrieval", "routing", "shapes", "heads"]


def _retrieval(ctx: BuildContext) -> FrameBody:
    s = causal_river(ctx)
    b = s.index("bank")
    return FrameBody(widgets=[bars("sumbars", LAYOUT["visual"], "what “bank” retrieves: its row of A",
                                   list(s.tokens), s.attention.weights[b], highlight=b)])


def _routing(ctx: BuildContext) -> FrameBody:
    s = causal_river(ctx)
    toks = list(s.tokens)
    t = tensor("sumA", "A: where the causal head routes weight", "weights", s.attention.weights, LAYOUT["visual"],
               rows=toks, cols=toks, digits=2, heat=True)
    return FrameBody(tensors=[derive_weights(t, s.attention.masked, row_names=toks, col_names=toks)])


def _shapes(ctx: BuildContext) -> FrameBody:
    s = causal_river(ctx)
    (n, d), dk, dv = s.x.shape, s.q.shape[1], s.v.shape[1]
    stages = [("Q, K = X·W_Q, X·W_K", f"({n}×{d})·({d}×{dk})", shape(n, dk)),
              ("V = X·W_V", f"({n}×{d})·({d}×{dv})", shape(n, dv)),
              ("S = Q·Kᵀ", f"({n}×{dk})·({dk}×{n})", shape(n, n)),
              ("A = softmax(S / √d_k + M)", "rows sum to 1", shape(n, n)),
              ("Z = A·V", f"({n}×{n})·({n}×{dv})", shape(n, dv)),
              ("O = Z·W_O", f"({n}×{dv})·({dv}×{d})", shape(n, d))]
    return FrameBody(widgets=[widget("pipeline", "sumpipe", LAYOUT["visual"], {
        "stages": [{"title": t, "formula": f, "shape": sh} for t, f, sh in stages], "active": len(stages) - 1})])


def _heads(ctx: BuildContext) -> FrameBody:
    return FrameBody(widgets=[picker(LAYOUT["visual"], selected=1, summary=False)])


STAGES: dict[str, Callable[[BuildContext], FrameBody]] = {
    "retrieval": _retrieval, "routing": _routing, "shapes": _shapes, "heads": _heads}


@CHAPTER.builder("walk.summary", SummaryParams, cards=(*ORDER, *(id for id, _ in HEAD_CARDS)))
def summary(ctx: BuildContext, p: SummaryParams) -> FrameBody:
    """The closing ideas one by one (earlier ones as titles), each beside a computed picture."""
    n = ORDER.index(p.stage) + 1
    shown = [card(idea, kind=IDEAS[idea], body=i == n - 1) for i, idea in enumerate(ORDER[:n])]  # earlier: titles
    body = STAGES[p.stage](ctx)
    body.widgets.insert(0, cards("sum", LAYOUT["cards"], shown, columns=1, active=n - 1, top=True))
    return body
