"""Slide "From the toy to the real thing" (``real.sizes``): the same equation with trained weights;
the model's sizes as its GGUF file states them, beside DeepSeek-V3.2's from the cost model."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.costs import costs
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Note
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
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
    c = ctx.model.config
    return FrameBody(widgets=[cards("toyreal", LAYOUT["cards"], [
        {"title": "chapters one and two", "kind": "input",
         "body": "A = softmax(Q·Kᵀ / √d_k + M), output A·V: weights designed by hand, a few numbers wide"},
        {"title": "this chapter", "kind": "weights",
         "body": f"the same A, computed from {display_name(c)}'s trained weights: {c.layers} layers of "
                 f"{c.heads} heads, every head {c.head_dim} numbers wide"},
    ], columns=2, arrows=True, active=1)])


def _file(ctx: BuildContext) -> FrameBody:
    c = ctx.model.config
    items = [{"title": f"{label}: {count(getattr(c, field))}", "tag": f"{c.architecture}.{key}", "body": ""}
             for label, key, field, _ in ROWS]
    items.append({"title": f"vocabulary: {count(c.vocab)} tokens", "tag": "tokenizer.ggml.tokens", "body": ""})
    items.append({"title": f"RoPE base: {count(int(c.rope_base))}", "tag": f"{c.architecture}.rope.freq_base",
                  "body": ""})
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
    note = Note(id="ratio", box=LAYOUT["note"], kind="neutral", text=(
        f"DeepSeek-V3.2 has {p.layers / c.layers:.1f}× the layers and {p.heads / c.heads:.0f}× the query "
        f"heads, each {p.d_k // c.head_dim}× as wide. The attention inside every head is the same calculation."))
    return FrameBody(tensors=[t], notes=[note])


STAGES = {"equation": _equation, "file": _file, "compare": _compare}


@CHAPTER.builder("real.sizes", SizesParams)
def sizes(ctx: BuildContext, p: SizesParams) -> FrameBody:
    """The same equation with trained weights; the model's sizes from its file beside DeepSeek-V3.2's."""
    return STAGES[p.stage](ctx)
