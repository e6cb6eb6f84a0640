"""Slide "Values": the map picks whom to read, not what to take; the third vector, the value, made
by the third learned matrix W_V, for one token and then for the whole table.
"""

from __future__ import annotations

from typing import Literal

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_scores
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import (
    ROW_PRODUCT,
    causal_attention,
    embedded,
    focus_row_in,
    focus_row_out,
    hide_numbers,
    mark,
    preset,
    row_times_matrix,
    stages,
    table_times_matrix,
)

LAYOUT = {
    "X": box(40, 130, 860, 560), "map": box(1060, 120, 500, 330), "where-note": box(960, 500, 600, 220),
    "v-row": box(620, 400, 600, 110), "vector-note": box(300, 580, 1000, 140),  # x → v, no matrix yet
    "wv-note": box(1140, 560, 420, 190),
}


class ValuesParams(Params):
    stage: Literal["where", "vector", "wv", "table"]


def _where(ctx: BuildContext) -> FrameBody:
    s, toks = ctx.story, ctx.tokens
    att = causal_attention(ctx)
    return FrameBody(
        counters=[counter(ctx, "scores")],
        tensors=[embedded(tensor("X", "input table X", "input", s.x, LAYOUT["X"], rows=toks, max_cols=5,
                                 highlight=Highlight(rows=[ctx.focus])), s.x, toks),
                 hide_numbers(derive_scores(tensor("map", "masked map", "mask", att.scores + att.mask, LAYOUT["map"],
                                                   rows=toks, cols=toks, digits=0, heat=True),
                                            s.q, s.k, row_names=toks, col_names=toks, mask=att.mask))],
        notes=[note("about", LAYOUT["where-note"], "value")])


def _vector(ctx: BuildContext) -> FrameBody:
    s = ctx.story
    return FrameBody(
        tensors=[focus_row_in(ctx, ROW_PRODUCT.left),
                 focus_row_out(ctx, LAYOUT["v-row"], s.w_v, s.v, w_name="W_V", name="v-row", label="v",
                               kind="value")],
        counters=[counter(ctx, "scores")],
        symbols=[mark("arrow", "→", ROW_PRODUCT.op)],
        notes=[note("about", LAYOUT["vector-note"], "value", word=ctx.tokens[ctx.focus], width=s.v.shape[1])])


def _wv(ctx: BuildContext) -> FrameBody:
    body = row_times_matrix(ctx, ctx.story.w_v, ctx.story.v, w_name="W_V", out_name="v-row", out_label="v",
                            out_kind="value")
    body.counters.append(counter(ctx, "scores"))
    wc = preset(ctx).weights_per_head("W_V")
    body.notes.append(note("about", LAYOUT["wv-note"], "value", formula=wc.formula))
    return body


def _table(ctx: BuildContext) -> FrameBody:
    body = table_times_matrix(ctx, ctx.story.w_v, ctx.story.v, w_name="W_V", out_name="V", out_kind="value")
    body.counters.append(counter(ctx, "v_all"))
    return body


STAGES = stages(ValuesParams, {"where": _where, "vector": _vector, "wv": _wv, "table": _table})


@CHAPTER.builder("story.values", ValuesParams, notes=("about",))
def values(ctx: BuildContext, p: ValuesParams) -> FrameBody:
    """The map picks whom to read, not what to take from them: the third vector, the value."""
    return STAGES[p.stage](ctx)
