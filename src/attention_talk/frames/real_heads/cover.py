"""The title slide's picture: the deck's sentence as the real model tokenizes it, with arcs from the
focus token and the whole map beside them, each as strong as the weight of the model's most
previous-token head (the measure's winner over every head, frames/real_heads/analysis.py), read from
the model run (frames/kit/cover.py)."""

from __future__ import annotations

from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.cover import cover as cover_picture
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import focus_index, token_labels


class CoverParams(Params):
    pass


@CHAPTER.builder("real.cover", CoverParams)
def cover(ctx, p: CoverParams) -> FrameBody:
    """The model's tokens, the focus token and one measured head's weights from it, as arcs and as a map."""
    a = analysis(ctx)
    job = a.jobs["previous"]
    run = a.sentence
    return cover_picture(token_labels(run.tokens), focus_index(ctx, run.tokens), run.head(job.layer, job.head).weights)
