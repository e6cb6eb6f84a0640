"""Slide "DSA: read only the keys that matter" (``ds.dsa``): the lightning indexer's scores
I(t, s) = Σ_j w(t, j)·ReLU(q_I(t, j)·k_I(s)) over every earlier token, the top-k keep of the focus
row, the sparse weights beside the dense map they approximate, the identity with the dense map
masked, and the work per key (engine.dsa on the chapter's toy; the cost model for the real sizes)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import attend, costs
from attention_talk.engine.costs_deepseek import indexer_per_key, mla_context_per_key
from attention_talk.engine.dsa import dsa
from attention_talk.formatting import count, number, scientific
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import CellDerivation, DerivPart, FrameBody, Highlight
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.inputs import INDEX_HEADS, TOP_K, Toy, toy
from attention_talk.frames.deepseek.shared import bars, max_gap, pos
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_sum, derive_weights
from attention_talk.frames.kit.layout import box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note

LAYOUT = {
    "index": box(60, 140, 760, 450), "side": box(900, 160, 640, 400), "note": box(60, 620, 1480, 130),
    "low": box(60, 640, 1480, 110), "keys2": box(60, 150, 900, 250), "perkey2": box(60, 420, 900, 150),
    "grid": box(60, 140, 760, 170), "gridnote": box(880, 150, 660, 150), "sum": box(60, 330, 1480, 420),
    "costnote": box(60, 640, 1480, 110), "table": box(1000, 380, 540, 220),
    "row": box(900, 150, 640, 440), "left": box(60, 140, 700, 450), "right": box(840, 140, 700, 450),
    "keys": box(60, 150, 700, 420), "perkey": box(840, 150, 700, 420),
}
INDEX_DIGITS = 1  # index scores, in the map and in its row's bars alike (the map's cells hold one decimal)
REAL_N = 131_072  # the context the cost bars are drawn at (128k tokens)


class SparseParams(Params):
    stage: Literal["heads", "index", "keep", "maps", "exact", "cost"]


def _index_tensor(t: Toy, b, label: str) -> object:
    idx = t.sparse.index
    dots = np.einsum("jtd,sd->jts", t.q_i, t.k_i)  # (H_I, n, n)
    out = tensor("index", label, "scores", idx, b, rows=t.tokens, cols=pos(t), digits=INDEX_DIGITS)
    out = derive_sum(out, lambda r, c: [(f"head {j + 1}: {number(t.w_i[r, j], 2)} × ReLU({number(dots[j, r, c], 2)})",
                                         float(t.w_i[r, j] * max(dots[j, r, c], 0.0))) for j in range(INDEX_HEADS)],
                     formula="Σ_j w(t, j)·ReLU(q_I(t, j)·k_I(s))",
                     title=lambda r, c: f"index score: “{t.tokens[r]}” → “{t.tokens[c]}”")
    out.derivation.cells = [cell if cell.c <= cell.r else CellDerivation(
        r=cell.r, c=cell.c, title=cell.title, value=None,
        parts=[DerivPart(op="copy", text="a later token: the indexer never reads it, −∞", value=None)])
        for cell in out.derivation.cells]
    return out


def _heads(t: Toy) -> FrameBody:
    f = t.focus
    dots = np.einsum("jd,sd->js", t.q_i[:, f], t.k_i[: f + 1])  # (H_I, f + 1)
    parts = t.w_i[f][:, None] * np.maximum(dots, 0.0)  # (H_I, f + 1)  w(t, j)·ReLU(q_I·k_I)
    heads = [f"head {j + 1}" for j in range(INDEX_HEADS)]
    grid = tensor("parts", f"row “{t.tokens[f]}”: w·ReLU(q_I·k_I) per head", "scores", parts, LAYOUT["grid"],
                  rows=heads, cols=pos(t)[: f + 1], heat=True, digits=INDEX_DIGITS)
    grid = derive_copy(grid, lambda r, c: (f"w = {number(t.w_i[f, r], 2)} × ReLU(q_I·k_I = {number(dots[r, c], 3)})",
                                           float(parts[r, c])),
                       formula="w(t, j)·ReLU(q_I(t, j)·k_I(s))", title=lambda r, c: f"{heads[r]}, key {c + 1}")
    total = parts.sum(axis=0)
    w = bars("sum", LAYOUT["sum"], "their sum: the index score", t.tokens[: f + 1], total, kind="scores",
             value_labels=[number(v, INDEX_DIGITS) for v in total])
    return FrameBody(tensors=[grid], widgets=[w], notes=[note("heads", LAYOUT["gridnote"], word=t.tokens[f])])


def _index(t: Toy) -> FrameBody:
    return FrameBody(tensors=[_index_tensor(t, LAYOUT["index"], "indexer scores I(t, s)")],
                     notes=[note("index", LAYOUT["side"])])


def _keep(t: Toy) -> FrameBody:
    f = t.focus
    idx = _index_tensor(t, LAYOUT["index"], f"index scores, top {TOP_K} kept")
    keep = t.sparse.keep
    # the kept keys outlined (a dropped score is still a score, not a mask's −∞)
    idx.highlight = Highlight(rows=[f], cells=[(r, c) for r in idx.row_index for c in idx.col_index
                                               if c <= r and keep[r, c]])
    row = t.sparse.index[f, : f + 1]
    said = [f"{number(v, INDEX_DIGITS)} {'kept' if k else 'dropped'}" for v, k in zip(row, keep[f], strict=False)]
    w = bars("row", LAYOUT["row"], f"row “{t.tokens[f]}”: its index scores", t.tokens[: f + 1], row, kind="scores",
             value_labels=said)
    return FrameBody(tensors=[idx], widgets=[w], notes=[note("keep", LAYOUT["note"], k=TOP_K, word=t.tokens[f])])


def _maps(t: Toy) -> FrameBody:
    n = len(t.tokens)
    logits = np.where(t.sparse.keep, t.dense.masked, -np.inf)
    sparse = derive_weights(tensor("sparse", f"DSA: top {TOP_K} keys", "weights",
                                   t.sparse.attention.weights, LAYOUT["left"], rows=t.tokens, cols=pos(t),
                                   heat=True), logits, row_names=t.tokens, col_names=t.tokens)
    dense = derive_weights(tensor("dense", "dense: every earlier key", "weights",
                                  t.dense.weights, LAYOUT["right"], rows=t.tokens, cols=pos(t), heat=True),
                           t.dense.masked, row_names=t.tokens, col_names=t.tokens)
    kept = [float(t.dense.weights[r][t.sparse.keep[r]].sum()) for r in range(n)]
    return FrameBody(tensors=[sparse, dense], notes=[note("maps", LAYOUT["note"], k=TOP_K,
                                                         share=number(min(kept), 2))])


def _exact(t: Toy) -> FrameBody:
    n = len(t.tokens)
    full = dsa(t.q, t.kv, t.absb.latents.c_kv, t.q_i, t.k_i, t.w_i, n, scale=t.w.scale)
    masked = attend(t.q, t.kv, t.absb.latents.c_kv, mask=np.where(t.sparse.keep, 0.0, -np.inf), scale=t.w.scale)
    out = tensor("sparse", f"DSA with k = {n}", "weights", full.attention.weights,
                 LAYOUT["left"], rows=t.tokens, cols=pos(t), heat=True)
    out = derive_weights(out, np.where(full.keep, t.dense.masked, -np.inf), row_names=t.tokens, col_names=t.tokens)
    dense = derive_weights(tensor("dense", "dense attention", "weights", t.dense.weights, LAYOUT["right"],
                                  rows=t.tokens, cols=pos(t), heat=True), t.dense.masked, row_names=t.tokens,
                           col_names=t.tokens)
    return FrameBody(tensors=[out, dense], notes=[note(
        "exact", LAYOUT["note"], all_keys=n, gap_full=scientific(max_gap(full.output, t.dense.output)),
        k=TOP_K, gap_masked=scientific(max_gap(t.sparse.output, masked.output)))])


def _cost(ctx: BuildContext) -> FrameBody:
    c = costs(ctx.deck.preset)
    k = c.preset.dsa_top_k
    keys = bars("keys", LAYOUT["keys2"], f"keys each new token reads, n = {count(REAL_N)}",
                ["plain multi-head", "indexer: every key", "MLA without DSA", "MLA with DSA"],
                [REAL_N, REAL_N, REAL_N, k], kind="key", value_labels=[count(REAL_N)] * 3 + [count(k)], highlight=3)
    idx, per = indexer_per_key(c), mla_context_per_key(c)
    reads = [REAL_N, k]
    vals = np.array([[x.value * n / 1e9] for x, n in zip((idx, per), reads, strict=True)])
    names = ["indexer", "MLA attention"]
    table = tensor("work", "GFLOP per token, one layer", "scores", vals, LAYOUT["table"], rows=names,
                   cols=["GFLOP"], digits=2, heat=True)
    texts = [f"{x.formula} FLOPs per key × {count(n)} keys read = {count(x.value * n)}, ÷ 10⁹"
             for x, n in zip((idx, per), reads, strict=True)]
    table = derive_copy(table, lambda r, col: (texts[r], float(vals[r, col])), formula="cost model",
                        title=lambda r, col: f"{names[r]}, n = {count(REAL_N)}")
    return FrameBody(widgets=[keys], tensors=[table], notes=[note(
        "cost", LAYOUT["costnote"], k=count(k), ctx=count(REAL_N), times=count(round(per.value / idx.value)))])


@CHAPTER.builder("ds.dsa", SparseParams, notes=("heads", "index", "keep", "maps", "exact", "cost"))
def sparse(ctx: BuildContext, p: SparseParams) -> FrameBody:
    """The lightning indexer's scores, the top-k keep, sparse beside dense, k ≥ n = dense, work per key."""
    if p.stage == "cost":
        return _cost(ctx)
    return {"heads": _heads, "index": _index, "keep": _keep, "maps": _maps, "exact": _exact}[p.stage](toy(ctx))
