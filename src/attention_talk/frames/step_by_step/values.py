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
    focus_row_out,
    hide_numbers,
    mark,
    preset,
    row_times_matrix,
    stages,
    table_times_matrix,
)

# One note box for the slide, under the value row on the right; the input table stays on the left
# while the value of its focus row appears, then gives way to x · W_V = v (ROW_PRODUCT).
LAYOUT = {
    "X": box(60, 130, 700, 560), "map": box(800, 120, 740, 400), "note": box(1140, 560, 400, 190),
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
        notes=[note("about", LAYOUT["note"], "value")])


def _vector(ctx: BuildContext) -> FrameBody:
    """The input table stays; its focus row's value appears where W_V's product will put it."""
    s, toks = ctx.story, ctx.tokens
    x = embedded(tensor("X", "input table X", "input", s.x, LAYOUT["X"], rows=toks, max_cols=5,
                        highlight=Highlight(rows=[ctx.focus])), s.x, toks)
    return FrameBody(
        tensors=[x, focus_row_out(ctx, ROW_PRODUCT.right, s.w_v, s.v, w_name="W_V", name="v-row", label="v",
                                  kind="value")],
        counters=[counter(ctx, "scores")],
        symbols=[mark("arrow", "→", (950, ROW_PRODUCT.op[1]))],
        notes=[note("about", LAYOUT["note"], "value", word=toks[ctx.focus], width=s.v.shape[1])])


def _wv(ctx: BuildContext) -> FrameBody:
    body = row_times_matrix(ctx, ctx.story.w_v, ctx.story.v, w_name="W_V", out_name="v-row", out_label="v",
                            out_kind="value")
    body.counters.append(counter(ctx, "scores"))
    wc = preset(ctx).weights_per_head("W_V")
    body.notes.append(note("about", LAYOUT["note"], "value", formula=wc.formula))
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
