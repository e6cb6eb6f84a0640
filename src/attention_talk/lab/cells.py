"""The cells the lab explains: one cell of one head's scores (Q·Kᵀ), masked scores or weights, with
the parts that add up to it, as the talk's derivation panels draw them (``frames/kit/derivations.py``),
for the illustrative chain (``chain_cell``) or the real model (``model_view.model_cell``).

Blocking NumPy work on plain arguments: the web layer validates a request, then runs these in a
worker thread. A request that validates alone but does not fit the sentence or the model raises
``FieldError``, whose message names the field ('row: …'): the routes answer it with a 422.
"""

from __future__ import annotations

import numpy as np

from attention_talk.frames.contract import Box, Tensor
from attention_talk.frames.kit.derivations import derive_scores, derive_weights
from attention_talk.lab.chain import illustrative_chain

LABELS = {"scores": "S = Q·Kᵀ", "masked": "S/√d_k + M", "weights": "A = softmax(S/√d_k + M)"}


class FieldError(ValueError):
    """A request that validates alone but not against the model or the sentence: 'row: …'."""


def check_index(field: str, value: int, count: int, what: str) -> None:
    if not 0 <= value < count:
        raise FieldError(f"{field}: {value} is out of range; there are {count} {what} (0–{count - 1})")


def causal_mask(n: int) -> np.ndarray:
    """0 on and below the diagonal, −∞ above it: (n, n)."""
    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)


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


def chain_cell(tokens: list[str], *, d_model: int, heads: int, d_k: int, causal: bool, temperature: float,
               seed: int, head: int, tensor: str, row: int, col: int) -> dict:
    """One cell of head ``head`` (0-based) of the illustrative chain of these tokens and settings
    (the body of POST /api/attention/derivation)."""
    check_index("head", head, heads, "heads")
    chain = illustrative_chain(tokens, d_model=d_model, heads=heads, d_k=d_k, causal=causal,
                               temperature=temperature, seed=seed)
    h = chain.head(head)
    return derive_cell(tensor, chain.tokens, row, col, q=h.q, k=h.k, scale=h.scale, masked=h.masked,
                       logits=h.masked / h.temperature, weights=h.weights, temperature=h.temperature)
