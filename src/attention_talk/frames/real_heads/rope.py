"""Slide "Positions the modern way" (``real.rope``): RoPE turns each pair of a query's and a key's
numbers by an angle that grows with position, so q·k depends on how far apart they are.

The query of the focus token and the key of the token ``OFFSET`` places before it, in the head the
previous-token measure picks, are turned back to position 0 (``rope`` by −p) and placed again at
other positions: the same pair at several offsets gives several scores; the same offset at several
places gives one score (up to float rounding).

The score table has a row per distance and a column per place, so the first step's one column runs
down the band and the next step's columns arrive beside it; the note keeps its column on all steps.
The angle table's columns are positions (an angle depends on the position, not on the token there).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.rope import rope, rope_angles
from attention_talk.formatting import number
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import CellDerivation, Derivation, FrameBody, Highlight
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, product_sum
from attention_talk.frames.kit.layout import BOTTOM, LEFT, RIGHT, TOP, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import note
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import focus_index, sourced, token_labels

LAYOUT = {"angles": box(LEFT, TOP, 1000, 74 + 6 * 62), "grid": box(LEFT, TOP, 1000, BOTTOM - TOP),
          "note": box(1100, TOP, RIGHT - 1100, 400)}
PAIRS = (0, 1, 2, 8, 16, 31)  # which of the d/2 pairs the angle table shows
OFFSET = 3  # the real pair: the focus token and the token this many places before it
OFFSETS = (0, 1, 2, 3, 4, 6, 8, 10)  # at most the focus token's position: no key before position 0
PLACE_SHIFTS = (0, 8, 24, 100, 1000)  # the focus token's own position, then further into a longer text


class RopeParams(Params):
    stage: Literal["angles", "offsets", "places"]


def rope_pair(ctx: BuildContext) -> dict:
    """The query and key (before RoPE) and the score grid of every place × offset."""
    an = analysis(ctx)
    job = an.jobs["previous"]
    maps = an.sentence.head(job.layer, job.head)
    base = ctx.model.config.rope_base
    m = focus_index(ctx, an.sentence.tokens)
    j = max(m - OFFSET, 0)
    q0 = rope(maps.q[m][None], np.array([-m]), base=base)[0]  # (d_k,) the query at position 0
    k0 = rope(maps.k[j][None], np.array([-j]), base=base)[0]  # (d_k,)
    places = [m + s for s in PLACE_SHIFTS]
    qs = {p: rope(q0[None], np.array([p]), base=base)[0] for p in places}
    ks = {(p, o): rope(k0[None], np.array([p - o]), base=base)[0] for p in places for o in OFFSETS}
    grid = np.array([[qs[p] @ ks[p, o] for p in places] for o in OFFSETS])  # (offsets, places)
    return {"job": job, "m": m, "j": j, "places": places, "qs": qs, "ks": ks, "grid": grid,
            "real": float(maps.scores[m, j]), "toks": token_labels(an.sentence.tokens), "model": an.model_name,
            "text": an.sentence.text}


def _angles(ctx: BuildContext) -> FrameBody:
    an = analysis(ctx)
    c = ctx.model.config
    toks = token_labels(an.sentence.tokens)
    n = len(toks)
    angles = rope_angles(np.arange(n), c.head_dim, c.rope_base)[:, list(PAIRS)].T  # (pairs, n)
    labels = [f"pair {i}" for i in PAIRS]
    t = tensor("angles", "angle p·θᵢ (radians) each pair turns by, at position p", "neutral", angles,
               LAYOUT["angles"], rows=labels, cols=[str(p) for p in range(n)], max_rows=len(PAIRS), max_cols=n,
               digits=1, heat=True)
    t = derive_copy(t, lambda r, col: (
        f"position {col} × θ_{PAIRS[r]} = {col} × {c.rope_base:g}^(−{2 * PAIRS[r]}/{c.head_dim})",
        float(angles[r, col])), formula="p·base^(−2i/d_k)",
        title=lambda r, col: f"{labels[r]} at position {col} (“{toks[col]}”)")
    why = note("why", LAYOUT["note"], "neutral", pairs=c.head_dim // 2, last_pair=c.head_dim // 2 - 1,
               slowest=f"{angles[-1, -1]:.4f}")
    return FrameBody(tensors=[t], notes=[why])


def _grid(ctx: BuildContext, stage: str) -> FrameBody:
    d = rope_pair(ctx)
    toks, m, j, places = d["toks"], d["m"], d["j"], d["places"]
    rows = [f"{o} apart" for o in OFFSETS]
    cols = [f"at {p:,}" for p in places]
    shown = 1 if stage == "offsets" else len(cols)  # one place first; the other places on the next step
    t = tensor("rope", f"q(“{toks[m]}”) · k(“{toks[j]}”), q placed at p", "scores", d["grid"][:, :shown],
               LAYOUT["grid"], rows=rows, cols=cols[:shown], max_rows=len(rows), max_cols=len(cols), digits=1,
               heat=True)
    real = OFFSETS.index(m - j)
    first = d["grid"][:, 0]  # (offsets,) the focus token's own place
    if stage == "offsets":
        t.highlight = Highlight(cells=[(real, 0)])
        figures = {"asker": toks[m], "answerer": toks[j], "lowest": number(first.min(), 1),
                   "highest": number(first.max(), 1), "apart": m - j,
                   "placed": number(first[real], 1), "computed": number(d["real"], 1)}
    else:
        t.highlight = Highlight(cells=[(real, k) for k in range(len(places))])
        same = d["grid"][real]
        figures = {"apart": m - j, "score": number(same[0], 2), "spread": f"{np.ptp(same):.1e}",
                   "places": len(places)}

    def cell(r: int, c: int) -> CellDerivation:
        o, p = OFFSETS[r], places[c]
        part = product_sum(d["qs"][p], d["ks"][p, o], text=f"q turned to position {p} · k turned to position {p - o}")
        return CellDerivation(r=r, c=c, title=f"q at {p} · k at {p - o}", parts=[part], value=part.value)

    t.derivation = Derivation(kind="scores", formula="R(p)q · R(p − offset)k",
                              cells=[cell(r, c) for r in t.row_index for c in t.col_index])
    t = sourced(t, d["model"], d["text"], d["job"].layer, d["job"].head, "rope")
    return FrameBody(tensors=[t], notes=[note("why", LAYOUT["note"], "scores", **figures)])


@CHAPTER.builder("real.rope", RopeParams, notes=("why",))
def rope_slide(ctx: BuildContext, p: RopeParams) -> FrameBody:
    """RoPE's angles per pair and position; one query and key at other offsets and other places."""
    if p.stage == "angles":
        return _angles(ctx)
    return _grid(ctx, p.stage)
