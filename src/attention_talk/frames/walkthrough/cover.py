"""The title slide's picture: the chapter's sentence as token chips, with arcs from the focus word
to the words it reads, each as strong as the designed causal head's weight (computed by the engine
from the chapter's designed inputs)."""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import COVER
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.shared import causal_river


class CoverParams(Params):
    pass


@CHAPTER.builder("walk.cover", CoverParams)
def cover(ctx: BuildContext, p: CoverParams) -> FrameBody:
    """The river sentence, its focus word and the causal head's weights from it as arcs."""
    s = causal_river(ctx)
    focus = s.index(ctx.deck.story.focus) if ctx.deck.story.focus in s.tokens else len(s.tokens) - 1
    links = [float(w) for w in s.attention.weights[focus]]
    return FrameBody(widgets=[widget("tokens", "cover", COVER, {"tokens": list(s.tokens), "focus": focus,
                                                               "links": links, "caption": ""}, kind="weights")])
