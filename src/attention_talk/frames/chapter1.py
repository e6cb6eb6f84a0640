"""Frame builders for chapter 1, "Attention step by step" (deck ``attention-step-by-step``).

Every number comes from the story model (designed inputs, see ``attention_talk.story``) through the
engine. Layout is in stage units (1600 × 900); the player only draws.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from attention_talk.frames.context import BuildContext
from attention_talk.frames.model import Box, FrameBody, Highlight, Note
from attention_talk.frames.registry import builder
from attention_talk.frames.tensors import tensor

MapStage = Literal["queries", "keys", "cell", "scores", "row", "mask"]
_STAGES: tuple[str, ...] = MapStage.__args__  # type: ignore[attr-defined]


class MapParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    stage: MapStage
    key: str | None = None  # the key token of the cell computed in the "cell" stage


def _fmt(x: float, digits: int = 2) -> str:
    return f"{x:.{digits}f}".replace("-", "−")


def dot_product_note(q: np.ndarray, k: np.ndarray, q_name: str, k_name: str, terms: int = 3) -> str:
    """'q_dog · k_old = 0.07×0.12 + … (128 terms) = 25.8', computed from the vectors."""
    shown = " + ".join(f"{_fmt(a)}×{_fmt(b)}" for a, b in zip(q[:terms], k[:terms], strict=True))
    return (f"q({q_name}) · k({k_name}) = {shown} + … ({len(q)} products) = {_fmt(float(q @ k), 1)}")


@builder("story.map", MapParams)
def attention_map(ctx: BuildContext, p: MapParams) -> FrameBody:
    """The attention map Q·Kᵀ built up: queries, keys, one cell, the map, the focus row, the mask."""
    s = ctx.story
    toks, focus = ctx.tokens, ctx.focus
    level = _STAGES.index(p.stage)
    att = s.attention(causal=True)
    q_box = Box(x=40, y=350, w=600, h=420)
    k_box, map_box = Box(x=680, y=112, w=600, h=230), Box(x=680, y=350, w=600, h=420)
    body = FrameBody()
    focus_rows = Highlight(rows=[focus]) if level >= 2 else Highlight()
    body.tensors.append(tensor("Q", "queries Q = X·W_Q", "query", s.q, q_box, rows=toks, max_cols=6,
                               highlight=focus_rows))
    if level == 0:
        return body
    key = toks.index(p.key) if p.key in toks else max(focus - 1, 0)
    key_hl = Highlight(cols=[key]) if level == 2 else Highlight()
    body.tensors.append(tensor("KT", "keys Kᵀ", "key", s.k.T, k_box, cols=toks, max_rows=5,
                               highlight=key_hl, transposed=True, gutter=96))
    if level == 1:
        return body
    is_masked = level >= 5
    values = att.scores + att.mask if is_masked else att.scores  # (n, n); −∞ above the diagonal
    hl = {2: Highlight(cells=[(focus, key)]), 3: Highlight(), 4: Highlight(rows=[focus])}.get(
        level, Highlight(rows=[focus]))
    label = "masked map Q·Kᵀ + M" if is_masked else "attention map Q·Kᵀ"
    body.tensors.append(tensor("map", label, "mask" if is_masked else "scores", values, map_box,
                               rows=toks, cols=toks, digits=1, heat=level >= 3, highlight=hl, gutter=96,
                               reveal="highlight" if level == 2 else "all"))
    note_box = Box(x=1310, y=350, w=260, h=400)
    if level == 2:
        text = dot_product_note(s.q[focus], s.k[key], toks[focus], toks[key])
        body.notes.append(Note(id="dot", text=text, box=note_box, kind="scores"))
    elif level == 4:
        row = att.scores[focus]
        best = int(np.argmax(row[: focus + 1]))
        body.notes.append(Note(id="row", box=note_box, kind="query", text=(
            f"Row “{toks[focus]}”: the asker. Among the tokens up to itself, its largest score is "
            f"with “{toks[best]}” ({_fmt(float(row[best]), 1)}).")))
    elif level == 5:
        seen = ", ".join(f"“{t}”" for t in toks[: focus + 1])
        body.notes.append(Note(id="row", box=note_box, kind="mask", text=(
            f"“{toks[focus]}” may read {seen}; the {len(toks) - focus - 1} later cells are −∞.")))
    return body
