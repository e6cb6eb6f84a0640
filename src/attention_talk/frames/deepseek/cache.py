"""Slide "Where chapter 1 left us" (``ds.cache``): plain multi-head attention's KV cache at
DeepSeek-V3.2's sizes, from the cost model: what one token stores, what a long context stores,
and that every new token reads it all — more bytes than the attention weights themselves."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import Costs, Count, costs
from attention_talk.engine.costs_deepseek import cache_bytes
from attention_talk.formatting import count
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.shared import bars, counter, gigabytes
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.widgets.mechanisms_model import SizesBar, SizesData, SizesRow

CONTEXTS = (8_192, 32_768, 131_072)  # context lengths drawn (131,072 = 128k tokens)
LAYOUT = {"bars": box(60, 125, 900, 420), "note": box(1020, 170, 520, 420), "low": box(60, 630, 1480, 110),
          "table": box(60, 400, 900, 180), "tall": box(1000, 330, 540, 250)}


class CacheParams(Params):
    stage: Literal["token", "context", "reread"]


def _token(c: Costs) -> FrameBody:
    p = c.preset
    per = c.kv_numbers_per_token_layer("mha")
    src = f"cost model preset {p.name}"
    rows = [SizesRow(title=f"{name} cached per token: heads × {sym}", kind=kind, unit="numbers",
                     bars=[SizesBar(count=p.heads, size=width, text=f"{p.heads} × {width}", source=src)])
            for name, sym, width, kind in (("keys", "d_k", p.d_k, "key"), ("values", "d_v", p.d_v, "neutral"))]
    rows.append(SizesRow(title="layers, each with its own cache", kind="output", unit="layers",
                         bars=[SizesBar(count=p.layers, size=1, text=str(p.layers), source=src)]))
    w = widget("sizes", "per-token", LAYOUT["bars"], SizesData(
        title="plain multi-head attention, one layer", models=["plain multi-head"], rows=rows, stage="file"),
        kind="neutral")
    total = c.kv_bytes_per_token("mha")
    return FrameBody(widgets=[w], notes=[note("token", LAYOUT["low"], numbers=count(per.value),
                                              bytes=count(c.kv_bytes_per_token_layer("mha").value),
                                              total=count(total.value))],
                     counters=[counter("mha-token", total, "plain multi-head cache per token")])


def _context(c: Costs) -> FrameBody:
    sizes = [cache_bytes(c, "mha", n) for n in CONTEXTS]
    w = bars("context", LAYOUT["bars"], f"plain multi-head cache, all {c.preset.layers} layers",
             [f"n = {count(n)}" for n in CONTEXTS], [s.value for s in sizes], kind="key",
             value_labels=[gigabytes(s.value) for s in sizes], highlight=len(CONTEXTS) - 1)
    table = _table("context-gb", "the same, in GB", sizes, [count(n) for n in CONTEXTS])
    return FrameBody(widgets=[w], tensors=[table],
                     notes=[note("context", LAYOUT["low"], ctx=count(CONTEXTS[-1]), size=gigabytes(sizes[-1].value))],
                     counters=[counter("mha-context", sizes[-1])])


def _reread(c: Costs) -> FrameBody:
    n, p = CONTEXTS[-1], c.preset
    cache = cache_bytes(c, "mha", n).value
    weights = c.weights_attention().value * p.bytes_per_number * p.layers
    half = cache_bytes(c, "mha", CONTEXTS[1]).value
    w = bars("reread", LAYOUT["bars"], "bytes read for every new token", [f"cache, n = {count(n)}",
             f"cache, n = {count(CONTEXTS[1])}", "attention weights"], [cache, half, weights],
             kind="key", value_labels=[gigabytes(cache), gigabytes(half), gigabytes(weights)], highlight=0)
    read = Count(weights, f"{c.weights_attention().formula} weights × {p.bytes_per_number} bytes × {p.layers} "
                          "layers", c.source, "bytes", "attention weights, every layer")
    parts = [cache_bytes(c, "mha", n), cache_bytes(c, "mha", CONTEXTS[1]), read]
    table = _table("reread-gb", "GB read per new token", parts, [f"cache, {count(n)}",
                   f"cache, {count(CONTEXTS[1])}", "weights"], vertical=True)
    return FrameBody(widgets=[w], tensors=[table],
                     notes=[note("reread", LAYOUT["low"], times=count(round(cache / weights)))])


def _table(name: str, label: str, counts: list[Count], names: list[str], vertical: bool = False) -> object:
    """Counts in GB as a one-row (``vertical``: one-column) table, each cell derived from its cost-model formula."""
    vals = np.array([[x.value / 1e9 for x in counts]])
    vals = vals.T if vertical else vals
    b = LAYOUT["tall"] if vertical else LAYOUT["table"]
    t = tensor(name, label, "key", vals, b, rows=names if vertical else ["GB"], cols=["GB"] if vertical else names,
               digits=1, heat=True)
    at = (lambda r, col: counts[r]) if vertical else (lambda r, col: counts[col])
    return derive_copy(t, lambda r, col: (f"{at(r, col).formula} = {count(at(r, col).value)} bytes, ÷ 10⁹",
                                          float(vals[r, col])), formula="cost model",
                       title=lambda r, col: at(r, col).label)


STAGES = {"token": _token, "context": _context, "reread": _reread}


@CHAPTER.builder("ds.cache", CacheParams, notes=("token", "context", "reread"))
def cache(ctx: BuildContext, p: CacheParams) -> FrameBody:
    """Plain multi-head attention's KV cache at DeepSeek-V3.2's sizes: per token, per context, read per token."""
    return STAGES[p.stage](costs(ctx.deck.preset))
