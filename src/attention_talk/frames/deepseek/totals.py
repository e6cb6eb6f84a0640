"""Slide "The totals" (``ds.totals``): FLOPs per token and cache bytes against the context length
for plain multi-head, MLA and MLA + DSA at DeepSeek-V3.2's sizes (engine/costs_deepseek.py)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import costs
from attention_talk.engine.costs_deepseek import KINDS, NAMES, cache_bytes, flops_per_token
from attention_talk.formatting import count, number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.shared import bars, counter, gigabytes
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note

CONTEXTS = (8_192, 32_768, 131_072)
LAYOUT = {"bars": box(60, 140, 940, 600), "grid": box(1060, 140, 480, 300), "note": box(1060, 470, 480, 270),
          "left": box(60, 140, 760, 260), "right": box(780, 380, 760, 260), "wide": box(60, 660, 1480, 90)}
SHORT = {"mha": "MHA", "mla": "MLA", "dsa": "MLA + DSA"}
KIND_OF = {"mha": "neutral", "mla": "key", "dsa": "weights"}


class TotalsParams(Params):
    stage: Literal["flops", "cache", "summary"]


def gflops(x: float) -> str:
    return f"{number(x / 1e9, 2)} GFLOP"


def table(c, flops: bool, b) -> object:
    """FLOPs per token (GFLOP) or cache (GB) of each kind at each context: a heat table, each cell
    derived from its cost-model count (formula and value)."""
    got = [[(flops_per_token if flops else cache_bytes)(c, k, n) for n in CONTEXTS] for k in KINDS]
    vals = np.array([[x.value / 1e9 for x in row] for row in got])
    t = tensor("flops-grid" if flops else "cache-grid", "GFLOP per token" if flops else "cache, GB", "scores"
               if flops else "key", vals, b, rows=[SHORT[k] for k in KINDS], cols=[count(n) for n in CONTEXTS],
               heat=True, digits=1)
    return derive_copy(t, lambda r, col: (f"{got[r][col].formula} = {count(got[r][col].value)}, ÷ 10⁹",
                                          float(vals[r, col])),
                       formula="cost model", title=lambda r, col: got[r][col].label)


def _summary(ctx: BuildContext) -> FrameBody:
    c, n = costs(ctx.deck.preset), CONTEXTS[-1]
    return FrameBody(tensors=[table(c, True, LAYOUT["left"]), table(c, False, LAYOUT["right"])],
                     notes=[note("summary", LAYOUT["wide"], ctx=count(n))])


@CHAPTER.builder("ds.totals", TotalsParams, notes=("flops", "cache", "summary"))
def totals(ctx: BuildContext, p: TotalsParams) -> FrameBody:
    """FLOPs per token or cache bytes of plain multi-head, MLA and MLA + DSA at three context lengths."""
    if p.stage == "summary":
        return _summary(ctx)
    c = costs(ctx.deck.preset)
    flops = p.stage == "flops"
    got = [(flops_per_token if flops else cache_bytes)(c, k, n) for n in CONTEXTS for k in KINDS]
    labels = [f"{count(n)} · {NAMES[k]}" for n in CONTEXTS for k in KINDS]
    title = "FLOPs per token, one layer" if flops else f"cache of one sequence, {c.preset.layers} layers"
    body = FrameBody(widgets=[bars(p.stage, LAYOUT["bars"], title, labels, [x.value for x in got],
                                   kind="weights" if flops else "key",
                                   value_labels=[gflops(x.value) if flops else gigabytes(x.value) for x in got],
                                   highlight=len(got) - (1 if flops else 2))])
    body.tensors.append(table(c, flops, LAYOUT["grid"]))
    n = CONTEXTS[-1]
    if p.stage == "flops":
        mla, ds = flops_per_token(c, "mla", n), flops_per_token(c, "dsa", n)
        body.counters.append(counter("dsa-flops", ds))
        body.notes.append(note("flops", LAYOUT["note"], ctx=count(n), mla=gflops(mla.value), dsa=gflops(ds.value),
                               times=number(mla.value / ds.value, 1),
                               mha=gflops(flops_per_token(c, "mha", n).value)))
    else:
        mha, mla, ds = (cache_bytes(c, k, n) for k in KINDS)
        body.counters.append(counter("mla-cache", mla))
        body.notes.append(note("cache", LAYOUT["note"], ctx=count(n), mha=gigabytes(mha.value),
                               mla=gigabytes(mla.value), dsa=gigabytes(ds.value),
                               ratio=number(c.kv_ratio("mha", "mla").value, 1)))
    return body
