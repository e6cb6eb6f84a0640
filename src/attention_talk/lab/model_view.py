"""The real model's view of one text, as the lab and the model's API show it: every attention map
asked for (``model_maps``), one head in full with every head as a small map (``model_lab``), and one
cell of a head's map explained (``model_cell``, with ``cells.derive_cell``).

Blocking NumPy work on plain arguments, run through the web layer's model queue: each takes the
loaded model first and ``cancel`` (asked between the model's layers, see ``Model.run``) last. Every
lab request runs the model with the same ``want`` (LAB_WANT), so the model's cache of recent texts
answers a change of head, layer or cell without running the model again.
"""

from __future__ import annotations

import base64
from collections.abc import Callable

import numpy as np

from attention_talk.engine.attention import softmax
from attention_talk.lab.cells import FieldError, causal_mask, check_index, derive_cell
from attention_talk.model import Model
from attention_talk.model.runner import Run, pick, top_indices

LAB_WANT = ("weights", "q", "k", "scores")


def _json(a: np.ndarray, digits: int) -> np.ndarray:
    """Rounded, −∞ as NaN (orjson writes null)."""
    return np.round(np.where(np.isneginf(a), np.nan, a), digits)


def next_tokens(run: Run) -> list[dict]:
    """The run's most likely next tokens, most likely first."""
    return [{"token": t.token, "id": t.id, "p": t.p} for t in run.next_tokens]


def output_softmax(logits: np.ndarray, temperature: float, top: int) -> tuple[np.ndarray, np.ndarray]:
    """The model's output softmax at ``temperature``, softmax(logits / T) over the whole vocabulary
    (the engine's softmax): the ``top`` most likely ids, most likely first (ties by id), and their
    probabilities. T < 1 sharpens the distribution, T > 1 flattens it; the order never changes."""
    p = softmax(logits, temperature=temperature)  # (V,)
    best = top_indices(p, top)
    return best, p[best]


def next_tokens_at(model: Model, run: Run, temperature: float, top: int = 10) -> list[dict]:
    """The run's next tokens at the output softmax ``temperature`` (1: the model's own, as cached)."""
    if temperature == 1.0:
        return next_tokens(run)
    ids, p = output_softmax(run.logits, temperature, top)
    return [{"token": model.tokenizer.display(int(i)), "id": int(i), "p": float(q)}
            for i, q in zip(ids, p, strict=True)]


def model_maps(model: Model, text: str, *, layers: list[int] | None, heads: list[int] | None, digits: int,
               max_weights: int, cancel: Callable[[], bool] | None = None) -> dict:
    """Every attention map (weights) of the layers and heads asked for (None: all), and the next tokens
    (the body of POST /api/model/attention); FieldError when there would be more than ``max_weights``."""
    n = len(model.tokenize(text))
    layers, heads = pick("layers", layers, model.config.layers), pick("heads", heads, model.config.heads)
    cells = len(layers) * len(heads) * n * n
    if cells > max_weights:
        raise FieldError(f"layers: {len(layers)} layers × {len(heads)} heads × {n}² tokens = {cells:,} weights, "
                         f"at most {max_weights:,} per request; ask for fewer layers or heads, or a shorter text")
    run = model.run(text, layers=layers, heads=heads, cancel=cancel)

    def head(layer: int, h: int) -> dict:
        maps = run.head(layer, h)
        return {"head": h, "kv_head": maps.kv_head, "weights": np.round(maps.weights, digits)}

    return {"tokens": run.tokens, "ids": run.ids,
            "layers": [{"layer": layer, "heads": [head(layer, h) for h in heads]} for layer in layers],
            "next_tokens": next_tokens(run)}


def pooled_grid(run: Run, layers: int, heads: int, cells: int) -> dict:
    """Every head's weights cut into ``cells`` × ``cells`` blocks, each the block's largest weight
    (a one-token stripe stays visible), as bytes round(255 · w), base64."""
    n = len(run.ids)
    m = min(cells, n)
    starts = (np.arange(m) * n) // m  # first token of each block
    maps = run.maps.stack("weights")  # (L·h, n, n): every layer's heads, in order
    pooled = np.maximum.reduceat(np.maximum.reduceat(maps, starts, axis=1), starts, axis=2)  # (L·h, m, m)
    data = np.rint(np.clip(pooled, 0.0, 1.0) * 255).astype(np.uint8)
    return {"cells": m, "starts": starts.tolist(), "layers": layers, "heads": heads, "encoding": "uint8-base64",
            "data": base64.b64encode(data.tobytes()).decode("ascii")}


def model_lab(model: Model, text: str, *, layer: int, head: int, digits: int, grid: int,
              next_temperature: float = 1.0, cancel: Callable[[], bool] | None = None) -> dict:
    """What the lab draws for the real model (the body of POST /api/model/lab): head ``head`` of layer
    ``layer`` in full, every head pooled into ``grid`` cells a side (0: none), and the next tokens at
    the output softmax's ``next_temperature``; FieldError for a layer or head the model lacks."""
    c = model.config
    check_index("layer", layer, c.layers, "layers")
    check_index("head", head, c.heads, "query heads")
    run = model.run(text, want=LAB_WANT, cancel=cancel)
    maps = run.head(layer, head)
    n = len(run.ids)
    scale = 1.0 / float(np.sqrt(c.head_dim))
    masked = maps.scores * scale + causal_mask(n)  # (n, n)
    return {
        "tokens": run.tokens, "ids": run.ids, "layers": c.layers, "heads": c.heads, "kv_heads": c.kv_heads,
        "head_dim": c.head_dim, "layer": layer, "head": head, "kv_head": maps.kv_head, "scale": scale,
        "scores": _json(maps.scores, digits), "masked": _json(masked, digits), "weights": _json(maps.weights, digits),
        "next_tokens": next_tokens_at(model, run, next_temperature), "next_temperature": next_temperature,
        "grid": pooled_grid(run, c.layers, c.heads, grid) if grid else None,
    }


def model_cell(model: Model, text: str, *, layer: int, head: int, tensor: str, row: int, col: int,
               cancel: Callable[[], bool] | None = None) -> dict:
    """One cell of one head's map, explained (the body of POST /api/model/derivation)."""
    c = model.config
    check_index("layer", layer, c.layers, "layers")
    check_index("head", head, c.heads, "query heads")
    run = model.run(text, want=LAB_WANT, cancel=cancel)
    maps = run.head(layer, head)
    scale = 1.0 / float(np.sqrt(c.head_dim))
    masked = maps.scores * scale + causal_mask(len(run.ids))
    return derive_cell(tensor, run.tokens, row, col, q=maps.q, k=maps.k, scale=scale,
                       masked=masked, logits=masked, weights=maps.weights)
