"""Slide "From the toy to the real thing" (``real.sizes``): the same equation with trained weights;
the model's sizes as its GGUF file states them, beside DeepSeek-V3.2's from the cost model.

The equation's two cards stand in a column right of a real map A (every row's weights of the head the
previous-token measure picks). The sizes are the ``sizes`` widget: heads as blocks as long as their
width, the model width as one bar, the layers as slabs; on the next step DeepSeek-V3.2's bars join
them on one scale, so the small model's bars shrink to their share."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.attention import causal_mask
from attention_talk.engine.costs import costs
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_weights
from attention_talk.frames.kit.layout import BOTTOM, CONTENT, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name, focus_index, sourced, token_labels
from attention_talk.frames.widgets.mechanisms_model import SizesBar, SizesData, SizesRow

# The map as chapter 3's map slide draws it (columns of 92 units clear the longest token, rows of 37),
# the two cards in a column to its right.
GUTTER, MAP_W, MAP_H = 121, 121 + 11 * 92, 74 + 11 * 37
LAYOUT = {"map": box(LEFT, TOP, MAP_W, MAP_H), "file": CONTENT,
          "cards": box(LEFT + MAP_W + 30, TOP, RIGHT - LEFT - MAP_W - 30, BOTTOM - TOP)}


class SizesParams(Params):
    stage: Literal["equation", "file", "compare"]


def _equation(ctx: BuildContext) -> FrameBody:
    """The toy's equation and the real model's (its sizes are the deck's figures from the file)."""
    items = [card("toy", kind="input"), card("real", kind="weights")]
    return FrameBody(widgets=[cards("toyreal", LAYOUT["cards"], items, columns=1, active=1)], tensors=[_real_map(ctx)])


def _real_map(ctx: BuildContext):
    """A real A: every row's weights in the head the previous-token measure picks (the focus row outlined)."""
    an = analysis(ctx)
    job = an.jobs["previous"]
    maps = an.sentence.head(job.layer, job.head)
    toks = token_labels(an.sentence.tokens)
    n = len(toks)
    logits = maps.scores / np.sqrt(maps.q.shape[1]) + causal_mask(n)
    t = tensor("realmap", f"A from trained weights, layer {job.layer}, head {job.head}", "weights", maps.weights,
               LAYOUT["map"], rows=toks, cols=toks, max_rows=n, max_cols=n, digits=2, heat=True, gutter=GUTTER)
    t.highlight = Highlight(rows=[focus_index(ctx, an.sentence.tokens)])
    return sourced(derive_weights(t, logits, row_names=toks, col_names=toks), an.model_name, an.sentence.text,
                   job.layer, job.head)


def size_rows(ctx: BuildContext, compare: bool) -> list[SizesRow]:
    """The file's sizes as bars of blocks (heads as long as their width, layers as slabs); with
    ``compare``, DeepSeek-V3.2's from the cost model beside them."""
    c, p = ctx.model.config, costs("deepseek-v3.2").preset
    a = c.architecture
    ds = f"cost model preset deepseek-v3.2 ({p.source})"
    # without key_length in the file, d_k was computed: the tag says from what (sizes.js prints "read from …")
    d_k = (f" × {a}.attention.key_length" if c.head_dim_read else "; d_k computed as d ÷ heads")
    spec = [("query heads × head width d_k", "query", (c.heads, c.head_dim), (p.heads, p.d_k),
             f"{a}.attention.head_count{d_k}"),
            ("key/value heads × d_k", "key", (c.kv_heads, c.head_dim), (p.h_kv, p.d_k),
             f"{a}.attention.head_count_kv{d_k}"),
            ("model width d", "output", (1, c.d_model), (1, p.d_model), f"{a}.embedding_length"),
            ("layers", "neutral", (c.layers, 1), (p.layers, 1), f"{a}.block_count")]
    text = lambda n, w: f"{n:,} × {w:,}" if w != 1 and n != 1 else f"{max(n, w):,}"  # noqa: E731
    rows = []
    for title, kind, mine, theirs, key in spec:
        bars = [SizesBar(count=mine[0], size=mine[1], text=text(*mine), source=f"GGUF metadata {key}")]
        if compare:
            bars.append(SizesBar(count=theirs[0], size=theirs[1], text=text(*theirs), source=ds))
        rows.append(SizesRow(title=title, kind=kind, bars=bars, unit="layers" if title == "layers" else "numbers"))
    return rows


def _sizes(ctx: BuildContext, stage: str) -> FrameBody:
    c = ctx.model.config
    models = [display_name(c)] + (["DeepSeek-V3.2"] if stage == "compare" else [])
    title = (f"{display_name(c)}, as its file states it" if stage == "file"
             else f"{display_name(c)} beside DeepSeek-V3.2, on one scale")
    data = SizesData(title=title, models=models, rows=size_rows(ctx, stage == "compare"), stage=stage)
    return FrameBody(widgets=[widget("sizes", "sizes", LAYOUT["file"], data, kind="neutral")])


STAGES = {"equation": _equation, "file": lambda ctx: _sizes(ctx, "file"),
          "compare": lambda ctx: _sizes(ctx, "compare")}


@CHAPTER.builder("real.sizes", SizesParams, cards=("toy", "real"))
def sizes(ctx: BuildContext, p: SizesParams) -> FrameBody:
    """The same equation with trained weights; the model's sizes from its file as blocks, beside DeepSeek-V3.2's."""
    return STAGES[p.stage](ctx)
