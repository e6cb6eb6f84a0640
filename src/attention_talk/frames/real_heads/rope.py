"""Slide "Positions the modern way" (``real.rope``): RoPE turns each pair of a query's and a key's
numbers by position × θᵢ, so q·k depends on how far apart they are, drawn as the ``rope`` widget.

Four pairs of the file's d/2 are drawn, one row of dials each: the fastest (pair 0), two between
and the slowest, their rates θᵢ = base^(−2i/d) from the file's rope base and head width.
Step 1 turns one unit arrow per pair to every position of the sentence. Steps 2 and 3 take the
query of the focus token and the key of the token ``OFFSET`` places before it, in the head the
previous-token measure picks, turned back to position 0 (``rope`` by −p): step 2 moves the key to
other distances (the angle between the arrows, and the score, change); step 3 moves both further
into a longer text by the same amount (the angle between, and the score, stay).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine.rope import rope
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.layout import CONTENT
from attention_talk.frames.kit.rope_gqa import placed_columns, rope_pairs, turn_columns
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.real_heads.analysis import analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.shared import focus_index, token_labels

LAYOUT = {"rope": CONTENT}
OFFSET = 3  # the real pair: the focus token and the token this many places before it
OFFSETS = (0, 1, 3, 6, 10)  # at most the focus token's position: no key before position 0
PLACE_SHIFTS = (0, 8, 24, 100, 1000)  # the focus token's own position, then further into a longer text


class RopeParams(Params):
    stage: Literal["angles", "offsets", "places"]


def drawn_pairs(width: int) -> tuple[int, int, int, int]:
    """The fastest pair, two a sixteenth and an eighth of the way along (they turn visibly over a
    sentence, the second slowly), the slowest."""
    return 0, width // 16, width // 8, width // 2 - 1


def rope_pair(ctx: BuildContext) -> dict:
    """The query of the focus token and the key ``OFFSET`` before it, both turned back to position 0."""
    an = analysis(ctx)
    job = an.jobs["previous"]
    maps = an.sentence.head(job.layer, job.head)
    base = ctx.model.config.rope_base
    m = focus_index(ctx, an.sentence.tokens)
    j = max(m - OFFSET, 0)
    q0 = rope(maps.q[m][None], np.array([-m]), base=base)[0]  # (d_k,) the query at position 0
    k0 = rope(maps.k[j][None], np.array([-j]), base=base)[0]  # (d_k,)
    return {"job": job, "m": m, "j": j, "q0": q0, "k0": k0, "real": float(maps.scores[m, j]),
            "toks": token_labels(an.sentence.tokens)}


@CHAPTER.builder("real.rope", RopeParams)
def rope_slide(ctx: BuildContext, p: RopeParams) -> FrameBody:
    """RoPE as arrows per coordinate pair: turned by position × θᵢ; a real query and key moved apart, then along."""
    c = ctx.model.config
    pairs = drawn_pairs(c.head_dim)
    data = {"base": c.rope_base, "width": c.head_dim, "pairs": rope_pairs(c.head_dim, c.rope_base, pairs)}
    if p.stage == "angles":
        toks = token_labels(analysis(ctx).sentence.tokens)
        cols = turn_columns(range(len(toks)), c.head_dim, c.rope_base, pairs, toks)
        data |= {"title": f"each pair's arrow turned by position × θᵢ, θᵢ = {c.rope_base:g}^(−2i/{c.head_dim})",
                 "columns": cols, "stage": "turn"}
    else:
        d = rope_pair(ctx)
        m, j, toks = d["m"], d["j"], d["toks"]
        if p.stage == "offsets":
            places = [(f"{o} apart", m, m - o) for o in OFFSETS]
            title = f"q of “{toks[m]}” at {m}, k of “{toks[j]}” moved back"
        else:
            places = [(f"at {m + s:,}", m + s, m + s - (m - j)) for s in PLACE_SHIFTS]
            title = f"both moved along, {m - j} apart"
        data |= {"title": f"{title}: layer {d['job'].layer}, head {d['job'].head}",
                 "columns": placed_columns(d["q0"], d["k0"], places, c.rope_base, pairs),
                 "stage": "offsets" if p.stage == "offsets" else "places",
                 "marked": OFFSETS.index(m - j) if p.stage == "offsets" else None}
    return FrameBody(widgets=[widget("rope", "rope", LAYOUT["rope"], data, kind="query")])
