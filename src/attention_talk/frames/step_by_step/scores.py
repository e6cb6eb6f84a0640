"""Slide "The attention map": Q·Kᵀ built up stage by stage (queries, keys, one cell, the whole map,
the focus row, the causal mask), with the dot product of one cell written out.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.formatting import number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Kind, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_projection, derive_scores
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import CounterStage, counter
from attention_talk.frames.step_by_step.shared import causal_attention, reveal_row, stages

# Queries down the left, keys (transposed) along the top, the map where they meet, a note beside it;
# from "all the cells" on, the map alone, larger ("big"), with its note beside it.
# The plan is written where Kᵀ will come; the one cell's dot product in the free corner above Q.
LAYOUT = {"Q": box(60, 340, 500, 420), "KT": box(600, 112, 680, 220), "map": box(600, 340, 680, 420),
          "note": box(60, 130, 500, 190), "big": box(260, 150, 880, 560), "big-note": box(1180, 190, 360, 400),
          "plan": box(600, 130, 680, 170)}
SHOWN = 3  # columns of Q, rows of Kᵀ shown (two and the last)
GUTTER = 96  # room for the token names left of Kᵀ and the map, so their columns line up

MapStage = Literal["queries", "keys", "cell", "scores", "row", "mask"]


class MapParams(Params):
    stage: MapStage
    key: str | None = None  # the key token of the cell computed in the "cell" stage


def dot_product_figures(q: np.ndarray, k: np.ndarray, q_name: str, k_name: str, terms: int = 3) -> dict[str, object]:
    """The figures of 'q(dog) · k(old) = 0.07×0.12 + … (128 products) = 25.8', computed from the vectors."""
    shown = " + ".join(f"{number(a)}×{number(b)}" for a, b in zip(q[:terms], k[:terms], strict=True))
    return {"asker": q_name, "answerer": k_name, "terms": shown, "products": len(q), "score": number(float(q @ k), 1)}


def _queries_tensor(ctx: BuildContext, focus: bool) -> Tensor:
    s = ctx.story
    hl = Highlight(rows=[ctx.focus]) if focus else Highlight()
    return derive_projection(tensor("Q", "queries Q = X·W_Q", "query", s.q, LAYOUT["Q"], rows=ctx.tokens,
                                    max_cols=SHOWN, highlight=hl),
                             s.x, s.w_q, x_name="x", w_name="W_Q", row_names=ctx.tokens)


def _keys_tensor(ctx: BuildContext, key: int | None = None) -> Tensor:
    s = ctx.story
    hl = Highlight(cols=[key]) if key is not None else Highlight()
    return derive_projection(tensor("KT", "keys Kᵀ", "key", s.k.T, LAYOUT["KT"], cols=ctx.tokens, max_rows=SHOWN,
                                    highlight=hl, transposed=True, gutter=GUTTER),
                             s.x, s.w_k, x_name="x", w_name="W_K", row_names=ctx.tokens, transposed=True)


def _map_tensor(ctx: BuildContext, highlight: Highlight, *, heat: bool = True, masked: bool = False,
                reveal: str = "all", area: str = "big") -> Tensor:
    """Q·Kᵀ, or with ``masked`` Q·Kᵀ + M (−∞ above the diagonal)."""
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    values = att.scores + att.mask if masked else att.scores  # (n, n)
    label = "masked map Q·Kᵀ + M" if masked else "attention map Q·Kᵀ"
    return derive_scores(tensor("map", label, "mask" if masked else "scores", values, LAYOUT[area], rows=toks,
                                cols=toks, digits=1, heat=heat, highlight=highlight, gutter=GUTTER, reveal=reveal),
                         s.q, s.k, row_names=toks, col_names=toks, mask=att.mask if masked else None)


def _frame(ctx: BuildContext, stage: CounterStage, *tensors: Tensor) -> FrameBody:
    return FrameBody(counters=[counter(ctx, stage)], tensors=list(tensors))


def _note(body: FrameBody, id: str, kind: Kind, area: str = "big-note", **figures: object) -> FrameBody:
    body.notes.append(note(id, LAYOUT[area], kind, **figures))
    return body


def _queries(ctx: BuildContext, p: MapParams) -> FrameBody:
    body = _frame(ctx, "k_all", _queries_tensor(ctx, focus=False))
    return _note(body, "about", "query", "plan", width=ctx.story.q.shape[1])


def _keys(ctx: BuildContext, p: MapParams) -> FrameBody:
    return _frame(ctx, "k_all", _queries_tensor(ctx, focus=False), _keys_tensor(ctx))


def _cell(ctx: BuildContext, p: MapParams) -> FrameBody:
    """One cell: the focus token's query against one key (``p.key``, else the token before it)."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    key = toks.index(p.key) if p.key in toks else max(focus - 1, 0)
    keys = _keys_tensor(ctx, key).model_copy(update={"reveal": "highlight"})  # the key's column only
    body = _frame(ctx, "k_all", reveal_row(_queries_tensor(ctx, focus=True), focus), keys,
                  _map_tensor(ctx, Highlight(cells=[(focus, key)]), heat=False, reveal="highlight", area="map"))
    return _note(body, "dot", "scores", "note", **dot_product_figures(s.q[focus], s.k[key], toks[focus], toks[key]))


def _scores(ctx: BuildContext, p: MapParams) -> FrameBody:
    """The whole map on its own: Q and Kᵀ have made their point, and the map's 49 numbers need the room."""
    toks = ctx.tokens
    body = _frame(ctx, "scores", _map_tensor(ctx, Highlight()))
    return _note(body, "about", "scores", tokens=len(toks))


def _row(ctx: BuildContext, p: MapParams) -> FrameBody:
    toks, focus = ctx.tokens, ctx.focus
    body = _frame(ctx, "scores", _map_tensor(ctx, Highlight(rows=[focus])))
    row = causal_attention(ctx).scores[focus]
    best = int(np.argmax(row[: focus + 1]))
    return _note(body, "about", "scores", word=toks[focus], best=toks[best], score=number(float(row[best]), 1))


def _mask(ctx: BuildContext, p: MapParams) -> FrameBody:
    toks, focus = ctx.tokens, ctx.focus
    body = _frame(ctx, "scores", _map_tensor(ctx, Highlight(rows=[focus]), masked=True))
    seen = ", ".join(f"“{t}”" for t in toks[: focus + 1])
    later = len(toks) - focus - 1
    return _note(body, "about", "mask", word=toks[focus], seen=seen, later=later)


STAGES = stages(MapParams, {"queries": _queries, "keys": _keys, "cell": _cell, "scores": _scores, "row": _row,
                            "mask": _mask})


@CHAPTER.builder("story.map", MapParams, notes=("about", "dot"))
def attention_map(ctx: BuildContext, p: MapParams) -> FrameBody:
    """The attention map Q·Kᵀ built up: queries, keys, one cell, the map, the focus row, the mask."""
    return STAGES[p.stage](ctx, p)
