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
from attention_talk.frames.kit.derivations import derive_copy, derive_output, derive_projection, derive_weights
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import W_V
from attention_talk.frames.walkthrough.shared import cards, causal_river, to_right
from attention_talk.frames.walkthrough.specialists import HEAD_CARDS, picker

LAYOUT = {"cards": box(LEFT, 120, 540, 640), "visual": to_right(640, 120, 640),
          "weights": box(660, 130, 300, 490), "values": box(980, 130, 400, 490), "z": box(980, 640, 400, 120)}
BLANK = [""]  # V's rows sit beside the weights' token labels
# the closing ideas in order, each a card (its words: the slide's) with its colour
IDEAS = {"retrieval": "neutral", "routing": "weights", "shapes": "neutral", "heads": "output"}
ORDER = list(IDEAS)


class SummaryParams(Params):
    stage: Literal["retrieval", "routing", "shapes", "heads"]


def _retrieval(ctx: BuildContext) -> FrameBody:
    """What “bank” retrieves: its row of A (as a column, one weight per value row), the value rows V,
    and their weighted sum z(bank), the row of Z (click a cell for its sum)."""
    s = causal_river(ctx)
    b, toks, a = s.index("bank"), list(s.tokens), s.attention
    w = a.weights[b:b + 1]  # (1, n)
    col = tensor("sum_a", "its weights", "weights", w.T, LAYOUT["weights"], rows=toks, cols=["a"], digits=2, heat=True)
    derive_copy(col, lambda r, c: (f"A[bank, {toks[r]}]: softmax of the row of “bank”", float(w[0, r])),
                formula="softmax(S / √d_k + M)", title=lambda r, c: f"weight of “{toks[r]}” for “bank”")
    v = tensor("sum_v", "V, the value rows", "value", s.v, LAYOUT["values"], rows=BLANK * len(toks),
               cols=["1", "2", "3"])
    derive_projection(v, s.x, W_V, x_name="x", w_name="W_V", row_names=toks)
    z = tensor("sum_z", "z(bank) = Σ aⱼ vⱼ", "output", a.output[b:b + 1], LAYOUT["z"], rows=BLANK,
               cols=["1", "2", "3"], digits=2)
    return FrameBody(tensors=[col, v, derive_output(z, w, s.v, row_names=["bank"], key_names=toks, v_name="v")])


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
