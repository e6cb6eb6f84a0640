"""Chapter 3's helpers: tensors that say which model run they come from, windows of a map, cards."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.frames.contract import Box, DerivedSource, Kind, Tensor, TensorSource
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget

__all__ = ["cards", "picked", "sourced"]


def sourced(t: Tensor, model: str, text: str, layer: int | None, head: int | None,
            quantity: str = "weights") -> Tensor:
    """``t`` with the run it was computed from: ``source`` for a head's weights (what POST
    /api/model/attention returns), ``derived_from`` for anything else computed from the run."""
    if quantity == "weights":
        assert layer is not None and head is not None
        t.source = TensorSource(model=model, text=text, layer=layer, head=head)
    else:
        t.derived_from = DerivedSource(model=model, text=text, layer=layer, head=head,
                                       quantity=quantity)  # type: ignore[arg-type]
    return t


def head_identity(layer: int, head: int) -> str:
    """What a head's drawings are, across slides: its map, and its cell in a grid of every head (the
    player flies one into the other, static/js/views/continuity.js)."""
    return f"head L{layer} h{head}"


def picked(name: str, label: str, kind: Kind, array: np.ndarray, box: Box, *, rows: Sequence[int],
           cols: Sequence[int], row_names: Sequence[str], col_names: Sequence[str], digits: int = 2,
           heat: bool = True) -> Tensor:
    """A tensor showing the chosen ``rows`` × ``cols`` of ``array`` (full indices kept)."""
    a = np.asarray(array, dtype=np.float64)
    sub = a[np.ix_(list(rows), list(cols))]
    t = tensor(name, label, kind, sub, box, rows=[row_names[i] for i in rows], cols=[col_names[j] for j in cols],
               max_rows=len(rows), max_cols=len(cols), digits=digits, heat=heat)
    return t.model_copy(update={"shape": tuple(int(s) for s in a.shape), "row_index": list(rows),
                                "col_index": list(cols)})


def cards(wid: str, box: Box, items: list[dict], columns: int, active: int | None = None,
          kind: Kind = "neutral", arrows: bool = False):
    """A cards widget; ``items`` are {title, body, tag?, kind?}."""
    return widget("cards", wid, box, {"cards": items, "columns": columns, "arrows": arrows, "active": active},
                  kind=kind)


def token_labels(tokens: Sequence[str]) -> list[str]:
    """Readable, unique-enough labels: a token's text without its leading space, position added
    when a text repeats (so 'the' twice reads 'the', 'the²')."""
    seen: dict[str, int] = {}
    out = []
    for tok in tokens:
        base = tok.strip() or "·"
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}{_sup(seen[base])}")
    return out


def _sup(k: int) -> str:
    return str(k).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


def display_name(config) -> str:
    """How slides name the model: 'SmolLM2-135M' for that file (whose general.name is a training-run
    label), else the file's own name."""
    name = config.name
    low = name.lower().replace(" ", "").replace("-", "")
    return "SmolLM2-135M" if low.startswith("smollm2135m") else name


def focus_index(ctx, tokens: Sequence[str]) -> int:
    """The model token of the deck's focus word (its first occurrence), else the last token."""
    focus = (ctx.deck.story.focus or "").strip().lower()
    for i, tok in enumerate(tokens):
        if tok.strip().lower() == focus:
            return i
    return len(tokens) - 1
