"""The title slide's picture: the deck's sentence as token chips, with arcs from the focus token to
the words it reads, each as strong as its causal attention weight (the story model's, computed by
the engine). A cover that shows the talk's one idea before a word is said, and fills the stage."""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import COVER
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.shared import causal_attention, tokens_widget


class CoverParams(Params):
    pass


@CHAPTER.builder("story.cover", CoverParams)
def cover(ctx: BuildContext, p: CoverParams) -> FrameBody:
    """The sentence, the focus token and its weights as arcs (no numbers: the talk computes them next)."""
    weights = causal_attention(ctx).weights[ctx.focus]
    return FrameBody(widgets=[tokens_widget("cover", ctx.tokens, COVER, focus=ctx.focus,
                                            links=[float(w) for w in weights], kind="weights")])
