"""Slide "From the toy to the real thing" (``real.sizes``): the same equation with trained weights;
the model's sizes as its GGUF file states them, beside DeepSeek-V3.2's from the cost model.

The boxes fill the band between the title and the caption: the equation's two cards in a column
beside one real row of A (the bars run the band's height), the sizes' cards across it, the table of
sizes at the left with its note beside it, under the table's title."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.costs import costs
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import BOTTOM, CONTENT, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import cards, display_name, focus_index, token_labels

LAYOUT = {"cards": box(LEFT, TOP, 620, BOTTOM - TOP), "row": box(740, TOP, RIGHT - 740, BOTTOM - TOP),
          "file": CONTENT, "table": box(LEFT, TOP, 440, 74 + 6 * 62), "note": box(600, 190, RIGHT - 600, 300)}
# (row label, GGUF metadata key, the Config field, the cost-model Preset field)
ROWS = [("layers", "block_count", "layers", "layers"), ("query heads", "attention.head_count", "heads", "heads"),
        ("key/value heads", "attention.head_count_kv", "kv_heads", "h_kv"),
        ("head width d_k", "attention.key_length", "head_dim", "d_k"),
        ("model width d", "embedding_length", "d_model", "d_model")]
VOCAB = ("vocabulary", "tokenizer.ggml.tokens", "vocab", "vocab")  # the table's last row (a tokenizer size)


class SizesParams(Params):
    stage: Literal["equation", "file", "compare"]


def _equation(ctx: BuildContext) -> FrameBody:
    """The toy's equation and the real model's (its sizes are the deck's figures from the file)."""
    items = [card("toy", kind="input"), card("real", kind="weights")]
    return FrameBody(widgets=[cards("toyreal", LAYOUT["cards"], items, columns=1, active=1), _real_row(ctx)])


def _real_row(ctx: BuildContext):
    """One row of a real A: the focus token's weights in the head the previous-token measure picks."""
    an = analysis(ctx)
    job = an.jobs["previous"]
    m = focus_index(ctx, an.sentence.tokens)
    row = an.sentence.head(job.layer, job.head).weights[m]  # (n,)
    toks = token_labels(an.sentence.tokens)
    return widget("weight-bars", "realrow", LAYOUT["row"], {
        "title": f"a row of A from trained weights: “{toks[m]}”, layer {job.layer}, head {job.head}",
        "labels": toks, "values": [float(v) for v in row], "scale_max": 1.0, "digits": 2,
        "highlight": int(np.argmax(row)), "sum": float(row.sum())}, kind="weights")


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
    table = [*ROWS, VOCAB]
    values = np.array([[getattr(c, field), getattr(p, attr)] for _, _, field, attr in table], dtype=np.float64)
    labels = [r[0] for r in table]
    cols = [display_name(c).split("-")[0], "DS-V3.2"]  # two labels that fit side by side over their cells
    t = tensor("sizes", f"sizes: {cols[0]}'s file, DeepSeek-V3.2's cost model", "neutral", values, LAYOUT["table"],
               rows=labels, cols=cols, digits=0)
    key = lambda r: f"{c.architecture}.{table[r][1]}" if table[r] is not VOCAB else VOCAB[1]  # noqa: E731
    t = derive_copy(t, lambda r, col: (
        f"GGUF metadata {key(r)} of {display_name(c)}" if col == 0 else
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
