"""The title slide's picture: the chapter's sentence as token chips, with arcs from the focus word
to the words it reads and the whole map beside them, each as strong as the designed causal head's
weight (computed by the engine from the chapter's designed inputs; frames/kit/cover.py)."""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.cover import cover as cover_picture
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import causal_river


class CoverParams(Params):
    pass


@CHAPTER.builder("walk.cover", CoverParams)
def cover(ctx: BuildContext, p: CoverParams) -> FrameBody:
    """The river sentence, its focus word, the causal head's weights from it as arcs and as a map."""
    s = causal_river(ctx)
    focus = s.index(ctx.deck.story.focus) if ctx.deck.story.focus in s.tokens else len(s.tokens) - 1
    return cover_picture(list(s.tokens), focus, s.attention.weights)
