"""The lab's numbers: the real model's view of one sentence (one head in full, every head as a small
map) and the derivation of any one cell, for the real model or the illustrative chain of
``POST /api/attention``. Blocking NumPy work: the routes run it in a worker thread.

Every lab request runs the model with the same ``want`` (LAB_WANT), so the model's cache of recent
texts answers a change of head, layer or cell without running the model again.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from attention_talk.frames.kit.derivations import derive_scores, derive_weights
from attention_talk.frames.model import Box, Tensor
from attention_talk.lab.chain import run_chain
from attention_talk.model import Model
from attention_talk.model.runner import Run

if TYPE_CHECKING:
    from attention_talk.web.lab_schemas import AttentionCellRequest, ModelCellRequest, ModelLabRequest

LAB_WANT = ("weights", "q", "k", "scores")
LABELS = {"scores": "S = Q·Kᵀ", "masked": "S/√d_k + M", "weights": "A = softmax(S/√d_k + M)"}


class FieldError(ValueError):
    """A request that validates alone but not against the model or the sentence: 'row: …'."""


def check_index(field: str, value: int, count: int, what: str) -> None:
    if not 0 <= value < count:
        raise FieldError(f"{field}: {value} is out of range; there are {count} {what} (0–{count - 1})")


def causal_mask(n: int) -> np.ndarray:
    """0 on and below the diagonal, −∞ above it: (n, n)."""
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)


def _json(a: np.ndarray, digits: int) -> np.ndarray:
    """Rounded, −∞ as NaN (orjson writes null)."""
    return np.round(np.where(np.isneginf(a), np.nan, a), digits)


def pooled_grid(run: Run, layers: int, heads: int, cells: int) -> dict:
    """Every head's weights cut into ``cells`` × ``cells`` blocks, each the block's largest weight
    (a one-token stripe stays visible), as bytes round(255 · w), base64."""
    n = len(run.ids)
    m = min(cells, n)
    starts = (np.arange(m) * n) // m  # first token of each block
    maps = np.stack([run.head(layer, h).weights for layer in range(layers) for h in range(heads)])  # (L·h, n, n)
    pooled = np.maximum.reduceat(np.maximum.reduceat(maps, starts, axis=1), starts, axis=2)  # (L·h, m, m)
    data = np.rint(np.clip(pooled, 0.0, 1.0) * 255).astype(np.uint8)
    return {"cells": m, "starts": starts.tolist(), "layers": layers, "heads": heads, "encoding": "uint8-base64",
            "data": base64.b64encode(data.tobytes()).decode("ascii")}


def model_lab(model: Model, req: ModelLabRequest, cancel: Callable[[], bool] | None = None) -> dict:
    """The body of POST /api/model/lab; FieldError for a layer or head the model lacks (``cancel``:
    asked between the model's layers, see ``Model.run``)."""
    c = model.config
    check_index("layer", req.layer, c.layers, "layers")
    check_index("head", req.head, c.heads, "query heads")
    run = model.run(req.text, want=LAB_WANT, cancel=cancel)
    maps = run.head(req.layer, req.head)
    n = len(run.ids)
    scale = 1.0 / float(np.sqrt(c.head_dim))
    masked = maps.scores * scale + causal_mask(n)  # (n, n)
    return {
        "tokens": run.tokens, "ids": run.ids, "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads,
        "head_dim": c.head_dim, "layer": req.layer, "head": req.head, "kv_head": maps.kv_head, "scale": scale,
        "scores": _json(maps.scores, req.digits), "masked": _json(masked, req.digits),
        "weights": _json(maps.weights, req.digits),
        "next_tokens": [{"token": t.token, "id": t.id, "p": t.p} for t in run.next_tokens],
        "grid": pooled_grid(run, c.layers, c.heads, req.grid) if req.grid else None,
    }


def _one_cell(name: str, tokens: list[str], r: int, c: int, value: float) -> Tensor:
    """A tensor that shows exactly one cell: the derivation helpers explain the cells shown."""
    kind = "weights" if name == "weights" else "scores"
    n = len(tokens)
    return Tensor(name=name, label=LABELS[name], kind=kind, shape=(n, n), rows=[tokens[r]], cols=[tokens[c]],
                  row_index=[r], col_index=[c], values=[[None if value == -np.inf else float(value)]],
                  box=Box(x=0, y=0, w=100, h=100))


def derive_cell(name: str, tokens: list[str], r: int, c: int, *, q: np.ndarray, k: np.ndarray, scale: float,
                masked: np.ndarray, logits: np.ndarray, weights: np.ndarray, temperature: float = 1.0) -> dict:
    """One cell of scores (q·k), masked (q·k × scale + mask) or weights (softmax of ``logits``, which
    is masked / temperature), with the parts that add up to it."""
    check_index("row", r, len(tokens), "tokens")
    check_index("col", c, len(tokens), "tokens")
    mask = np.where(np.isneginf(masked), -np.inf, 0.0)
    if name == "scores":
        t = derive_scores(_one_cell(name, tokens, r, c, float(q[r] @ k[c])), q, k, row_names=tokens, col_names=tokens)
    elif name == "masked":
        t = derive_scores(_one_cell(name, tokens, r, c, masked[r, c]), q, k, row_names=tokens, col_names=tokens,
                          scale=scale, mask=mask)
    else:
        t = derive_weights(_one_cell(name, tokens, r, c, weights[r, c]), logits, row_names=tokens, col_names=tokens)
        if temperature != 1.0:
            part = t.derivation.cells[0].parts[0]
            part.text = f"{part.text}, each s = masked score ÷ temperature {temperature:g}"
    return {"tensor": name, "label": LABELS[name], "derivation": t.derivation.model_dump(mode="json")}


def model_cell(model: Model, req: ModelCellRequest, cancel: Callable[[], bool] | None = None) -> dict:
    """The body of POST /api/model/derivation (``cancel`` as in ``model_lab``)."""
    c = model.config
    check_index("layer", req.layer, c.layers, "layers")
    check_index("head", req.head, c.heads, "query heads")
    run = model.run(req.text, want=LAB_WANT, cancel=cancel)
    maps = run.head(req.layer, req.head)
    scale = 1.0 / float(np.sqrt(c.head_dim))
    masked = maps.scores * scale + causal_mask(len(run.ids))
    return derive_cell(req.tensor, run.tokens, req.row, req.col, q=maps.q, k=maps.k, scale=scale,
                       masked=masked, logits=masked, weights=maps.weights)


def attention_cell(req: AttentionCellRequest) -> dict:
    """The body of POST /api/attention/derivation: the chain of POST /api/attention, one cell."""
    check_index("head", req.head, req.heads, "heads")
    d_k = req.d_k or req.d_model // req.heads
    chain = run_chain(req.token_list, d_model=req.d_model, heads=req.heads, d_k=d_k, causal=req.causal,
                      temperature=req.temperature, seed=req.seed)
    h = chain.head(req.head)
    return derive_cell(req.tensor, chain.tokens, req.row, req.col, q=h.q, k=h.k, scale=h.scale, masked=h.masked,
                       logits=h.masked / h.temperature, weights=h.weights, temperature=h.temperature)
