"""Section 5, the nine-stage pipeline (``walk.pipeline``): nine stacked stages with their shapes, one
figure in which the active stage moves down the list (four steps: projections 1–3, scores 4,
weights 5–7, output 8–9); beside it each step's inputs and its output (causal river sentence) with
every cell explained."""

from __future__ import annotations

import numpy as np
from pydantic import Field, field_validator

from attention_talk.formatting import shape
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Kind, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import (
    derive_copy,
    derive_output,
    derive_projection,
    derive_scores,
    derive_weights,
)
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import W_O, W_Q, W_V, Sentence
from attention_talk.frames.walkthrough.shared import FEATS, causal_river, to_right

# the list narrow enough for stage 4's Q, Kᵀ and S to sit side by side with readable token labels
LAYOUT = {"pipe": box(LEFT, 110, 420, 660), "hint": to_right(505, 660, 100),
          # stage 4 as a matrix product: Kᵀ above the map, Q to its left, S under Kᵀ and beside Q
          "q": box(505, 300, 355, 350), "kt": to_right(870, 110, 190), "s": to_right(870, 300, 350),
          # the other steps: the input on the left, the output on the right
          "in": box(505, 130, 520, 520), "out": to_right(1045, 130, 520),
          # stages 5–7: the masked, scaled scores (tints; their cells explain every number) beside A
          "masked": box(505, 130, 350, 520), "A": to_right(870, 130, 520)}
# each step's active stages (first, last), named by its last stage
GROUPS = {3: (1, 3), 4: (4, 4), 7: (5, 7), 9: (8, 9)}
VALUE_COLS = ["1", "2", "3"]
BLANK = [""]  # an unlabelled row or column: its neighbour (Q, Kᵀ, Z) carries the label


class PipelineParams(Params):
    stage: int = Field(ge=1, le=9, description="The last stage of the step's group: 3, 4, 7 or 9 (stages 1–3, 4, 5–7, "
                                               "8–9).")

    @field_validator("stage")
    @classmethod
    def _ends_a_group(cls, v: int) -> int:
        if v not in GROUPS:
            raise ValueError(f"stage {v} ends no group; use one of {sorted(GROUPS)}")
        return v


def _rows(n: int, d: int, d_k: int, d_v: int) -> list[tuple[str, str, str]]:
    """(title, formula, result shape) of each of the nine stages."""
    return [
        ("Q = X·W_Q", f"({n}×{d})·({d}×{d_k})", shape(n, d_k)),
        ("K = X·W_K", f"({n}×{d})·({d}×{d_k})", shape(n, d_k)),
        ("V = X·W_V", f"({n}×{d})·({d}×{d_v})", shape(n, d_v)),
        ("S = Q·Kᵀ", f"({n}×{d_k})·({d_k}×{n})", shape(n, n)),
        ("S / √d_k", f"× 1/√{d_k}", shape(n, n)),
        ("S + M (causal)", "0 or −∞", shape(n, n)),
        ("A = softmax(S / √d_k + M)", "each row sums to 1", shape(n, n)),
        ("Z = A·V", f"({n}×{n})·({n}×{d_v})", shape(n, d_v)),
        ("O = Z·W_O", f"({n}×{d_v})·({d_v}×{d})", shape(n, d)),
    ]


def _project(s: Sentence, name: str, arr: np.ndarray, w: np.ndarray, kind: Kind, b: str) -> Tensor:
    toks = list(s.tokens)
    t = tensor(name, f"{name} = X·W_{name}", kind, arr, LAYOUT[b], rows=toks, cols=VALUE_COLS)
    return derive_projection(t, s.x, w, x_name="x", w_name=f"W_{name}", row_names=toks)


def _input(s: Sentence) -> Tensor:
    toks = list(s.tokens)
    t = tensor("X", "X, the input rows", "input", s.x, LAYOUT["in"], rows=toks, cols=["1", "2", "3", "4"])
    return derive_copy(t, lambda r, c: (f"E[{s.ids[r]}] + position {r + 1}, {FEATS[c]}", float(s.x[r, c])),
                       formula="E[ids] + P", title=lambda r, c: f"x({toks[r]}), {FEATS[c]}")


def _key_t(s: Sentence) -> Tensor:
    """Kᵀ (d_k × n), drawn above the map so each key's column lines up with its column of scores."""
    toks = list(s.tokens)
    t = tensor("Kt", "Kᵀ", "key", s.k.T, LAYOUT["kt"], cols=toks, rows=VALUE_COLS)
    return derive_copy(t, lambda r, c: (f"key of “{toks[c]}”, coordinate {r + 1}", float(s.k[c, r])),
                       formula="K = X·W_K, transposed", title=lambda r, c: f"k({toks[c]}), coordinate {r + 1}")


def _scores(s: Sentence) -> list[Tensor]:
    """Stage 4 as a matrix product: Q on the left, Kᵀ above, S = Q·Kᵀ where their rows and columns meet."""
    toks, a = list(s.tokens), s.attention
    sc = derive_scores(tensor("S", "S = Q·Kᵀ", "scores", a.scores, LAYOUT["s"], rows=BLANK * len(toks),
                              cols=BLANK * len(toks)), a.q, a.k, row_names=toks, col_names=toks)
    return [_project(s, "Q", s.q, W_Q, "query", "q"), _key_t(s), sc]


def _weights(s: Sentence) -> list[Tensor]:
    """Stages 5–7: S / √d_k + M (the input, rows labelled) beside A, the softmax of each of its rows."""
    toks, a = list(s.tokens), s.attention
    masked = derive_scores(tensor("S", "S / √d_k + M", "mask", a.masked, LAYOUT["masked"], rows=toks,
                                  cols=BLANK * len(toks)), a.q, a.k, row_names=toks, col_names=toks,
                           scale=a.scale, mask=a.mask)
    w = derive_weights(tensor("A", "A = softmax(rows)", "weights", a.weights, LAYOUT["A"], rows=BLANK * len(toks),
                              cols=toks, heat=True), a.masked, row_names=toks, col_names=toks)
    return [masked, w]


def _mix(s: Sentence) -> Tensor:
    toks, a = list(s.tokens), s.attention
    return derive_output(tensor("Z", "Z = A·V", "output", a.output, LAYOUT["in"], rows=toks, cols=VALUE_COLS),
                         a.weights, a.v, row_names=toks, key_names=toks)


def _out(s: Sentence) -> Tensor:
    toks, a = list(s.tokens), s.attention
    t = tensor("O", "O = Z·W_O", "output", a.output @ W_O, LAYOUT["out"], rows=BLANK * len(toks), cols=FEATS)  # (n, d)
    return derive_projection(t, a.output, W_O, x_name="z", w_name="W_O", row_names=toks)


STAGES = {
    3: lambda s: [_input(s), _project(s, "Q", s.q, W_Q, "query", "out")],
    4: _scores,
    7: _weights,
    9: lambda s: [_mix(s), _out(s)],
}


@CHAPTER.builder("walk.pipeline", PipelineParams, notes=("hint", "hint-one"))
def pipeline(ctx: BuildContext, p: PipelineParams) -> FrameBody:
    """Nine stacked stages with their shapes; the active group is drawn with its inputs and output."""
    s = causal_river(ctx)
    n, d = s.x.shape
    rows = _rows(n, d, W_Q.shape[1], W_V.shape[1])
    first, last = GROUPS[p.stage]
    pipe = widget("pipeline", "pipe", LAYOUT["pipe"], {
        "stages": [{"title": t, "formula": f, "shape": sh} for t, f, sh in rows], "active": last - 1,
        "first": first - 1})
    ts = STAGES[p.stage](s)
    key, also = ("hint", ("hint-one",)) if first < last else ("hint-one", ("hint",))
    hint = note("hint", LAYOUT["hint"], ts[-1].kind, key=key, also=also, first=first, stage=last, stages=len(rows),
                shape=rows[last - 1][2])
    return FrameBody(tensors=ts, widgets=[pipe], notes=[hint])
