"""Slides "The query matrix", "Keys" and "Every token at once": W_Q as one matrix, the token's row
times W_Q, the keys and W_K, then the whole table times W_Q and W_K.
"""

from __future__ import annotations

from typing import Literal

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_projection
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.counter import counter
from attention_talk.frames.step_by_step.shared import (
    ROW_H,
    embedded,
    hide_numbers,
    learned,
    preset,
    row_of,
    row_times_matrix,
    stages,
    table_times_matrix,
)

# Keys: the query along the top with the slide's one note beside it (the same box on every step),
# the tokens' rows below it (first X, whose rows will answer, then the keys K), W_K to their right.
LAYOUT = {
    "W_Q": box(60, 120, 900, 640), "wq-note": box(1010, 220, 530, 300),  # the matrix alone
    "q-row": box(60, 120, 760, ROW_H), "keys-note": box(880, 120, 660, 180),
    "X": box(60, 270, 760, 480), "K": box(60, 270, 760, 480), "W_K": box(880, 320, 660, 430),
}


# --- the query matrix W_Q -----------------------------------------------------------------------


class WqParams(Params):
    stage: Literal["matrix", "multiply", "counter"]


def _matrix(ctx: BuildContext) -> FrameBody:
    s = ctx.story
    d, d_k = s.w_q.shape
    return FrameBody(
        tensors=[learned(tensor("W_Q", "W_Q", "query", s.w_q, LAYOUT["W_Q"], max_rows=10, max_cols=5, digits=3),
                         s.w_q, "W_Q")],
        notes=[note("about", LAYOUT["wq-note"], "query", neurons=d_k, inputs=d)])


def _multiply(ctx: BuildContext) -> FrameBody:
    return row_times_matrix(ctx, ctx.story.w_q, ctx.story.q, w_name="W_Q", out_name="q-row", out_label="q",
                            out_kind="query")


def _first_count(ctx: BuildContext) -> FrameBody:
    body = _multiply(ctx)
    body.counters.append(counter(ctx, "q1"))
    return body


WQ_STAGES = stages(WqParams, {"matrix": _matrix, "multiply": _multiply, "counter": _first_count})


@CHAPTER.builder("story.wq", WqParams, notes=("about",))
def query_matrix(ctx: BuildContext, p: WqParams) -> FrameBody:
    """W_Q: all the neurons' weights as one matrix; the token's row times W_Q is its query."""
    return WQ_STAGES[p.stage](ctx)


# --- keys ---------------------------------------------------------------------------------------


class KeysParams(Params):
    stage: Literal["room", "offer", "wk"]


def _the_query(ctx: BuildContext) -> FrameBody:
    """The focus token's query, ready; the FLOP counter so far."""
    s, toks, focus = ctx.story, ctx.tokens, ctx.focus
    return FrameBody(counters=[counter(ctx, "q1")], tensors=[derive_projection(
        tensor("q-row", f"query of “{toks[focus]}”", "query", row_of(s.q, focus), LAYOUT["q-row"],
               rows=[toks[focus]], max_cols=5),
        row_of(s.x, focus), s.w_q, x_name="x", w_name="W_Q", row_names=[toks[focus]])])


def _with_keys(ctx: BuildContext) -> FrameBody:
    """The query and the table of keys, its numbers hidden until "every token at once" computes them."""
    s, toks = ctx.story, ctx.tokens
    body = _the_query(ctx)
    body.tensors.append(derive_projection(
        tensor("K", "keys K", "key", s.k, LAYOUT["K"], rows=toks, max_cols=5, reveal="none"),
        s.x, s.w_k, x_name="x", w_name="W_K", row_names=toks))
    return body


def _room(ctx: BuildContext) -> FrameBody:
    """The query, and below it the rows that will answer it: every token's row of X (colours only,
    its numbers had their step), where the keys will appear."""
    s, toks = ctx.story, ctx.tokens
    body = _the_query(ctx)
    body.tensors.append(hide_numbers(embedded(tensor("X", "input table X", "input", s.x, LAYOUT["X"], rows=toks,
                                                     max_cols=5), s.x, toks)))
    body.notes.append(note("about", LAYOUT["keys-note"], "key"))
    return body


def _offer(ctx: BuildContext) -> FrameBody:
    body = _with_keys(ctx)
    body.notes.append(note("about", LAYOUT["keys-note"], "key", width=ctx.story.k.shape[1]))
    return body


def _wk(ctx: BuildContext) -> FrameBody:
    s = ctx.story
    body = _with_keys(ctx)
    wc = preset(ctx).weights_per_head("W_K")
    body.tensors.append(learned(tensor("W_K", "W_K", "key", s.w_k, LAYOUT["W_K"], max_rows=7, max_cols=4, digits=3),
                                s.w_k, "W_K"))
    body.notes.append(note("about", LAYOUT["keys-note"], "key", formula=wc.formula, weights=int(wc.value)))
    return body


KEYS_STAGES = stages(KeysParams, {"room": _room, "offer": _offer, "wk": _wk})


@CHAPTER.builder("story.keys", KeysParams, notes=("about",))
def keys(ctx: BuildContext, p: KeysParams) -> FrameBody:
    """Every token offers a key: what it can answer. W_K has the shape of W_Q."""
    return KEYS_STAGES[p.stage](ctx)


# --- every token at once ------------------------------------------------------------------------


class BatchParams(Params):
    stage: Literal["queries", "keys"]


def _queries(ctx: BuildContext) -> FrameBody:
    body = table_times_matrix(ctx, ctx.story.w_q, ctx.story.q, w_name="W_Q", out_name="Q", out_kind="query")
    body.counters.append(counter(ctx, "q_all"))
    return body


def _keys(ctx: BuildContext) -> FrameBody:
    body = table_times_matrix(ctx, ctx.story.w_k, ctx.story.k, w_name="W_K", out_name="K", out_kind="key")
    body.counters.append(counter(ctx, "k_all"))
    return body


BATCH_STAGES = stages(BatchParams, {"queries": _queries, "keys": _keys})


@CHAPTER.builder("story.batch", BatchParams)
def every_token(ctx: BuildContext, p: BatchParams) -> FrameBody:
    """The whole table times W_Q gives every query; times W_K every key: one multiply each."""
    return BATCH_STAGES[p.stage](ctx)
