"""Slide "Tokens need context": the input table, the focus token's row, an ambiguous word that gets
the same row in two sentences, and the neighbours that decide what it means.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Tensor
from attention_talk.frames.kit.chapter import NoParams, Params
from attention_talk.frames.kit.cover import cover as cover_picture
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.step_by_step.chapter import CHAPTER
from attention_talk.frames.step_by_step.inputs import embed_words
from attention_talk.frames.step_by_step.shared import causal_attention, embedded, row_of, stages, tokens_widget

AMBIGUOUS = ("the bat flew out of the cave", "he swung the bat at the ball")
WORD = "bat"

# The figure on the left, the slide's one note on the right in the same box on every step, low
# enough to bridge the two sentences of "bat": the input table; the two sentences and their rows of
# "bat" one above the other; the sentence low in the band, its arcs rising through it.
NOTE = box(1110, 400, 430, 350)
LAYOUT = {
    "X": box(60, 130, 1000, 560),
    "sent-a": box(60, 120, 1040, 130), "bat-a": box(60, 250, 1040, 140),
    "sent-b": box(60, 410, 1040, 130), "bat-b": box(60, 540, 1040, 140),
    "sentence": box(60, 120, 1000, 580),
}


class ContextParams(Params):
    stage: Literal["table", "pick", "bat", "neighbours"]


def _input_table(ctx: BuildContext, highlight: Highlight, **figures: object) -> FrameBody:
    s, toks = ctx.story, ctx.tokens
    x = embedded(tensor("X", "input table X", "input", s.x, LAYOUT["X"], rows=toks, max_cols=6,
                        highlight=highlight), s.x, toks)
    return FrameBody(tensors=[x], notes=[note("about", NOTE, "input", **figures)])


def _table(ctx: BuildContext) -> FrameBody:
    return _input_table(ctx, Highlight(), tokens=len(ctx.tokens), width=ctx.story.x.shape[1])


def _pick(ctx: BuildContext) -> FrameBody:
    toks, focus = ctx.tokens, ctx.focus
    return _input_table(ctx, Highlight(rows=[focus]), word=toks[focus], width=ctx.story.x.shape[1],
                        others=len(toks) - 1)


def _word_row(name: str, label: str, words: list[str], x: np.ndarray) -> Tensor:
    """The ambiguous word's row of ``x``, the embedding of the sentence ``words``."""
    i = words.index(WORD)
    return embedded(tensor(name, label, "input", row_of(x, i), LAYOUT[name], rows=[WORD], max_cols=10),
                    row_of(x, i), [WORD], where=f" (word {count(i + 1)} of {count(len(words))})")


def _bat(ctx: BuildContext) -> FrameBody:
    a, b = (sentence.split() for sentence in AMBIGUOUS)
    xa, xb = (embed_words(t, seed=ctx.deck.story.seed) for t in (a, b))
    body = FrameBody(
        widgets=[tokens_widget("sent-a", a, LAYOUT["sent-a"], focus=a.index(WORD)),
                 tokens_widget("sent-b", b, LAYOUT["sent-b"], focus=b.index(WORD))],
        tensors=[_word_row("bat-a", f"“{WORD}” in sentence 1", a, xa),
                 _word_row("bat-b", f"“{WORD}” in sentence 2", b, xb)])
    same = bool(np.array_equal(xa[a.index(WORD)], xb[b.index(WORD)]))
    # the text picked by what the engine computed, so the slide cannot claim what is not true
    body.notes.append(note("about", NOTE, "input", key="about" if same else "differ",
                           also=("differ",), width=xa.shape[1]))
    return body


def neighbour_links(ctx: BuildContext) -> list[float]:
    """Arc strengths from the focus token: its causal attention weights (0 for every later token)."""
    return [float(w) for w in causal_attention(ctx).weights[ctx.focus]]


def _neighbours(ctx: BuildContext) -> FrameBody:
    """Arcs from the focus token to the words it may read (itself and earlier), as strong as its weights."""
    toks, focus = ctx.tokens, ctx.focus
    quoted = [f"“{t}”" for t in toks[:focus]]
    earlier = " and ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)
    return FrameBody(
        widgets=[tokens_widget("sentence", toks, LAYOUT["sentence"], focus=focus, links=neighbour_links(ctx))],
        notes=[note("about", NOTE, key="about" if earlier else "first", also=("first",),
                    word=toks[focus], earlier=earlier)])


STAGES = stages(ContextParams, {"table": _table, "pick": _pick, "bat": _bat, "neighbours": _neighbours})

@CHAPTER.builder("story.cover")
def cover(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The title's picture: the story's sentence, the focus token's arcs and the causal map they come from."""
    return cover_picture(ctx.tokens, ctx.focus, causal_attention(ctx).weights, wid="sentence")


@CHAPTER.builder("story.context", ContextParams, notes=("about", "differ", "first"))
def tokens_need_context(ctx: BuildContext, p: ContextParams) -> FrameBody:
    """The input table; one row is "dog"; an ambiguous word has one row; neighbours decide."""
    return STAGES[p.stage](ctx)
