"""Slide "From the toy to the real thing" (``real.sizes``): the same equation with trained weights;
the model's sizes as its GGUF file states them, beside DeepSeek-V3.2's from the cost model."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.costs import costs
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name

LAYOUT = {"cards": box(60, 140, 1480, 300), "file": box(60, 140, 1480, 520),
          "table": box(160, 130, 900, 470), "note": box(1110, 150, 430, 420)}
# (row label, GGUF metadata key, the Config field, the cost-model Preset field)
ROWS = [("layers", "block_count", "layers", "layers"), ("query heads", "attention.head_count", "heads", "heads"),
        ("key/value heads", "attention.head_count_kv", "kv_heads", "h_kv"),
        ("head width d_k", "attention.key_length", "head_dim", "d_k"),
        ("model width d", "embedding_length", "d_model", "d_model")]


class SizesParams(Params):
    stage: Literal["equation", "file", "compare"]


def _equation(ctx: BuildContext) -> FrameBody:
    """The toy's equation and the real model's (its sizes are the deck's figures from the file)."""
    items = [card("toy", kind="input"), card("real", kind="weights")]
    return FrameBody(widgets=[cards("toyreal", LAYOUT["cards"], items, columns=2, arrows=True, active=1)])


def _file(ctx: BuildContext) -> FrameBody:
    c = ctx.model.config
    # one card per size, titled by the deck; its tag is the GGUF key it was read from (notation)
    items = [card(field, tag=f"{c.architecture}.{key}", body=False, value=getattr(c, field))
             for _, key, field, _ in ROWS]
    items.append(card("vocab", tag="tokenizer.ggml.tokens", body=False, value=c.vocab))
    items.append(card("rope_base", tag=f"{c.architecture}.rope.freq_base", body=False, value=int(c.rope_base)))
    return FrameBody(widgets=[cards("file", LAYOUT["file"], items, columns=3, kind="input")])


def _compare(ctx: BuildContext) -> FrameBody:
    c = ctx.model.config
    p = costs("deepseek-v3.2").preset
    values = np.array([[getattr(c, field), getattr(p, attr)] for _, _, field, attr in ROWS], dtype=np.float64)
    labels = [r[0] for r in ROWS]
    cols = [display_name(c).split("-")[0], "DeepSeek"]
    t = tensor("sizes", f"{display_name(c)} (its file) and DeepSeek-V3.2 (cost model)", "neutral", values,
               LAYOUT["table"],
               rows=labels, cols=cols, digits=0)
    t = derive_copy(t, lambda r, col: (
        f"GGUF metadata {c.architecture}.{ROWS[r][1]} of {display_name(c)}" if col == 0 else
        f"cost model preset deepseek-v3.2 ({p.source})", float(values[r, col])),
        formula="read, not computed", title=lambda r, col: f"{labels[r]}, {cols[col]}")
    ratio = note("ratio", LAYOUT["note"], "neutral", layers_times=f"{p.layers / c.layers:.1f}",
                 heads_times=f"{p.heads / c.heads:.0f}", width_times=p.d_k // c.head_dim)
    return FrameBody(tensors=[t], notes=[ratio])


STAGES = {"equation": _equation, "file": _file, "compare": _compare}


@CHAPTER.builder("real.sizes", SizesParams, notes=("ratio",),
                 cards=("toy", "real", *(field for _, _, field, _ in ROWS), "vocab", "rope_base"))
def sizes(ctx: BuildContext, p: SizesParams) -> FrameBody:
    """The same equation with trained weights; the model's sizes from its file beside DeepSeek-V3.2's."""
    return STAGES[p.stage](ctx)
