"""The title slide's picture (``ds.cover``): the deck's sentence, arcs from its focus token to the
keys DSA keeps for it, and the sparse map beside them, the dropped keys at weight 0 (frames/kit/cover.py
with engine.dsa's weights on the chapter's toy)."""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.inputs import toy
from attention_talk.frames.kit.chapter import NoParams
from attention_talk.frames.kit.cover import cover as cover_picture


@CHAPTER.builder("ds.cover", NoParams)
def cover(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The sentence, the focus token's arcs to the keys DSA keeps, the sparse map (dropped keys at weight 0)."""
    t = toy(ctx)
    return cover_picture(t.tokens, t.focus, t.sparse.attention.weights)  # a dropped key: weight 0, no arc
