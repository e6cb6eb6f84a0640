"""Section 5, the nine-stage pipeline (``walk.pipeline``): nine stacked stages with their shapes, and
the active stage's matrix (causal river sentence) with every cell explained."""

from __future__ import annotations

import numpy as np
from pydantic import Field

from attention_talk.formatting import shape
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Kind, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_output, derive_projection, derive_scores, derive_weights
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import W_K, W_O, W_Q, W_V, Sentence
from attention_talk.frames.walkthrough.shared import FEATS, causal_river, to_right

# the map is wide enough (7 columns of 114) for its token labels not to run into each other
LAYOUT = {"pipe": box(LEFT, 110, 520, 660), "tensor": to_right(620, 130, 520), "hint": to_right(620, 660, 100)}
VALUE_COLS = ["1", "2", "3"]


class PipelineParams(Params):
    stage: int = Field(ge=1, le=9)


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


def _project(s: Sentence, name: str, arr: np.ndarray, w: np.ndarray, kind: Kind) -> Tensor:
    toks = list(s.tokens)
    t = tensor(name, f"{name} = X·W_{name}", kind, arr, LAYOUT["tensor"], rows=toks, cols=VALUE_COLS)
    return derive_projection(t, s.x, w, x_name="x", w_name=f"W_{name}", row_names=toks)


def _score_map(s: Sentence, label: str, kind: Kind, arr: np.ndarray, **how: object) -> Tensor:
    """An n × n score map of the sentence; ``how`` adds the scale and the mask to its derivation."""
    toks, a = list(s.tokens), s.attention
    return derive_scores(tensor("S", label, kind, arr, LAYOUT["tensor"], rows=toks, cols=toks),
                         a.q, a.k, row_names=toks, col_names=toks, **how)


def _weights(s: Sentence) -> Tensor:
    toks, a = list(s.tokens), s.attention
    return derive_weights(tensor("A", "A = softmax(S / √d_k + M)", "weights", a.weights, LAYOUT["tensor"], rows=toks,
                                 cols=toks, heat=True), a.masked, row_names=toks, col_names=toks)


def _mix(s: Sentence) -> Tensor:
    toks, a = list(s.tokens), s.attention
    return derive_output(tensor("Z", "Z = A·V", "output", a.output, LAYOUT["tensor"], rows=toks, cols=VALUE_COLS),
                         a.weights, a.v, row_names=toks, key_names=toks)


def _out(s: Sentence) -> Tensor:
    toks, a = list(s.tokens), s.attention
    t = tensor("O", "O = Z·W_O", "output", a.output @ W_O, LAYOUT["tensor"], rows=toks, cols=FEATS)  # (n, d)
    return derive_projection(t, a.output, W_O, x_name="z", w_name="W_O", row_names=toks)


STAGES = {
    1: lambda s: _project(s, "Q", s.q, W_Q, "query"),
    2: lambda s: _project(s, "K", s.k, W_K, "key"),
    3: lambda s: _project(s, "V", s.v, W_V, "value"),
    4: lambda s: _score_map(s, "S = Q·Kᵀ", "scores", s.attention.scores),
    5: lambda s: _score_map(s, "S / √d_k", "scores", s.attention.scaled, scale=s.attention.scale),
    6: lambda s: _score_map(s, "S / √d_k + M", "mask", s.attention.masked, scale=s.attention.scale,
                            mask=s.attention.mask),
    7: _weights,
    8: _mix,
    9: _out,
}


@CHAPTER.builder("walk.pipeline", PipelineParams, notes=("hint",))
def pipeline(ctx: BuildContext, p: PipelineParams) -> FrameBody:
    """Nine stacked stages with their shapes; the active one is drawn with its numbers."""
    s = causal_river(ctx)
    n, d = s.x.shape
    rows = _rows(n, d, W_Q.shape[1], W_V.shape[1])
    pipe = widget("pipeline", "pipe", LAYOUT["pipe"], {
        "stages": [{"title": t, "formula": f, "shape": sh} for t, f, sh in rows], "active": p.stage - 1})
    t = STAGES[p.stage](s)
    hint = note("hint", LAYOUT["hint"], t.kind, stage=p.stage, stages=len(rows), shape=rows[p.stage - 1][2])
    return FrameBody(tensors=[t], widgets=[pipe], notes=[hint])
