"""Section 9, the mechanism in one view (``walk.summary``): the closing cards, revealed one by one."""

from __future__ import annotations

from typing import Literal

from attention_talk.frames.context import BuildContext
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.model import FrameBody
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import band, cards

LAYOUT = {"cards": band(130, 600)}
ORDER = ["retrieval", "routing", "shapes", "heads"]
SUMMARY = [
    {"title": "learned retrieval", "kind": "neutral",
     "body": "compare each query with every key, softmax the scores, sum the value rows with those "
             "weights; training shapes the projections"},
    {"title": "routing, not reasoning", "kind": "weights",
     "body": "a map shows where one head in one layer sent weight, not which concept the model used"},
    {"title": "shapes expose mistakes", "kind": "neutral",
     "body": "Q n_q × d_k and K n_k × d_k give QKᵀ n_q × n_k; with V n_k × d_v the output is n_q × d_v"},
    {"title": "many heads, one width", "kind": "output",
     "body": "each head has its own projections and map; concat and W_O return to the model width"},
]


class SummaryParams(Params):
    stage: Literal["retrieval", "routing", "shapes", "heads"]


@CHAPTER.builder("walk.summary", SummaryParams)
def summary(ctx: BuildContext, p: SummaryParams) -> FrameBody:
    """The closing cards, revealed one by one."""
    n = ORDER.index(p.stage) + 1
    return FrameBody(widgets=[cards("sum", LAYOUT["cards"], SUMMARY[:n], columns=2, active=n - 1)])
