"""Slide "The query": the focus token asks a question, a learned vector of length d_k."""

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
from attention_talk.frames.step_by_step.shared import row_of, stages, tokens_widget

# The sentence along the top; below it every token asks ("?" under each chip), then an arrow from
# the focus token down to its question, the note under both.
LAYOUT = {
    "sentence": box(160, 120, 1280, 240), "asks": box(160, 120, 1280, 360), "ask": box(300, 560, 1000, 130),
    "q": box(160, 360, 1280, 140), "note": box(300, 560, 1000, 140),
}


class QueryParams(Params):
    stage: Literal["ask", "vector", "dog"]


def _sentence(ctx: BuildContext, drop: str = "focus") -> FrameBody:
    area = LAYOUT["asks" if drop == "every" else "sentence"]
    return FrameBody(widgets=[tokens_widget("sentence", ctx.tokens, area, focus=ctx.focus, drop=drop)])


def _ask(ctx: BuildContext) -> FrameBody:
    body = _sentence(ctx, "every")
    body.notes.append(note("ask", LAYOUT["ask"], "query", word=ctx.tokens[ctx.focus]))
    return body


def _with_query(ctx: BuildContext, reveal: str, **figures: object) -> FrameBody:
    """The sentence, the focus token's query (its numbers shown or not) and a note."""
    s, tok, focus = ctx.story, ctx.tokens[ctx.focus], ctx.focus
    body = _sentence(ctx)
    body.tensors.append(derive_projection(
        tensor("q", f"query of “{tok}”", "query", row_of(s.q, focus), LAYOUT["q"], rows=[tok], max_cols=14,
               reveal=reveal),
        row_of(s.x, focus), s.w_q, x_name="x", w_name="W_Q", row_names=[tok]))
    body.notes.append(note("about", LAYOUT["note"], "query", **figures))
    return body


def _vector(ctx: BuildContext) -> FrameBody:
    return _with_query(ctx, "none", width=ctx.story.q.shape[1])


def _dog(ctx: BuildContext) -> FrameBody:
    return _with_query(ctx, "all", width=ctx.story.q.shape[1], word=ctx.tokens[ctx.focus])


STAGES = stages(QueryParams, {"ask": _ask, "vector": _vector, "dog": _dog})


@CHAPTER.builder("story.query", QueryParams, notes=("ask", "about"))
def query(ctx: BuildContext, p: QueryParams) -> FrameBody:
    """A token asks a question: a learned vector of length d_k."""
    return STAGES[p.stage](ctx)
