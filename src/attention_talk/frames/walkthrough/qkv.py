"""Section 3, queries, keys and values (``walk.qkv``): the three jobs as cards, then the three
projections Q, K, V of the river sentence."""

from __future__ import annotations

from typing import Literal

from attention_talk.formatting import shape
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_projection
from attention_talk.frames.kit.layout import LEFT, box, columns, rows
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import FEATURES, W_K, W_Q, W_V, Sentence
from attention_talk.frames.walkthrough.shared import band, cards, sentences

_MATRICES = columns(box(LEFT, 130, 1470, 420), [1, 1, 1], gap=30)
_UNDER = columns(band(392, 368), [1, 1, 1], gap=22)  # one computed example under each job's card
_QUERY = rows(_UNDER[0], [1, 1], gap=24)  # the row of “bank”, then its query under it
LAYOUT = {"jobs": band(120, 250), "Q": _MATRICES[0], "K": _MATRICES[1], "V": _MATRICES[2],
          "learned": band(580, 120), "x_bank": _QUERY[0], "q_bank": _QUERY[1], "k_all": _UNDER[1],
          "v_all": _UNDER[2], "wq": box(_UNDER[1].x, 140, _UNDER[1].w, 460)}

JOBS = ["query", "key", "value"]  # each job's card (its words: the slide's) and its colour
BLANK = [""]  # an unlabelled row or column (its neighbour carries the label): fewer words on the stage


class QkvParams(Params):
    stage: Literal["query", "key", "value", "matrices"]


def _bank_row(river: Sentence) -> Tensor:
    """The input row of “bank” that its query is made from."""
    b = river.index("bank")
    xt = tensor("x_bank", "x(bank), its input row", "input", river.x[b:b + 1], LAYOUT["x_bank"], rows=["bank"],
                cols=["1", "2", "3", "4"])
    return derive_copy(xt, lambda r, c: (f"E[{river.ids[b]}] + position {b + 1}, feature {c + 1}",
                                         float(river.x[b, c])), formula="E[ids] + P",
                       title=lambda r, c: f"x(bank), feature {c + 1}")


def _examples(ctx: BuildContext) -> list[Tensor]:
    """Under each card, its numbers: the query of “bank” (under its input row), every token's key,
    every token's value."""
    river, _ = sentences(ctx)
    toks, b = list(river.tokens), river.index("bank")
    q = tensor("q_bank", "q(bank) = x(bank)·W_Q", "query", river.q[b:b + 1], LAYOUT["q_bank"], rows=["bank"],
               cols=["1", "2", "3"])
    out = [_bank_row(river), derive_projection(q, river.x[b:b + 1], W_Q, x_name="x", w_name="W_Q",
                                               row_names=["bank"])]
    for name, arr, w, kind in (("K", river.k, W_K, "key"), ("V", river.v, W_V, "value")):
        t = tensor(f"{name.lower()}_all", f"{name} = X·W_{name}, every token", kind, arr, LAYOUT[f"{name.lower()}_all"],
                   rows=toks if name == "K" else BLANK * len(toks), cols=BLANK * 3)  # V sits in K's rows
        out.append(derive_projection(t, river.x, w, x_name="x", w_name=f"W_{name}", row_names=toks))
    return out


def _w_q() -> Tensor:
    """The designed W_Q that makes the query (beside the query's chain, until the key takes its place)."""
    feats = list(FEATURES)
    t = tensor("W_Q", "W_Q (designed): x(bank)·W_Q = q(bank)", "query", W_Q, LAYOUT["wq"], rows=feats,
               cols=["1", "2", "3"], digits=1)
    return derive_copy(t, lambda r, c: ("a parameter: learned in a real model, designed here", float(W_Q[r, c])),
                       formula="parameter", title=lambda r, c: f"W_Q[{feats[r]}, {c + 1}]")


def _jobs(ctx: BuildContext, p: QkvParams) -> FrameBody:
    """The cards of the jobs up to this stage's, the last one active, each with its numbers under it;
    the query's step also shows the W_Q that makes it."""
    n = JOBS.index(p.stage) + 1
    jobs = [card(job, kind=job) for job in JOBS[:n]]
    tensors = _examples(ctx)[:n + 1]  # x(bank) and q(bank) come together
    return FrameBody(widgets=[cards("qkv", LAYOUT["jobs"], jobs, columns=3, active=n - 1)],
                     tensors=[*tensors, _w_q()] if p.stage == "query" else tensors)


def _matrices(ctx: BuildContext, p: QkvParams) -> FrameBody:
    river, _ = sentences(ctx)
    toks = list(river.tokens)
    body = FrameBody()
    for name, arr, w, kind in (("Q", river.q, W_Q, "query"), ("K", river.k, W_K, "key"), ("V", river.v, W_V, "value")):
        labels = toks if name == "Q" else BLANK * len(toks)  # one set of token labels for the three matrices
        t = tensor(name, f"{name} = X·W_{name}", kind, arr, LAYOUT[name], rows=labels, cols=BLANK * 3)
        body.tensors.append(derive_projection(t, river.x, w, x_name="x", w_name=f"W_{name}", row_names=toks))
    body.notes.append(note("learned", LAYOUT["learned"], shape=shape(*W_Q.shape)))
    return body


STAGES = {"query": _jobs, "key": _jobs, "value": _jobs, "matrices": _matrices}


@CHAPTER.builder("walk.qkv", QkvParams, notes=("learned",), cards=tuple(JOBS))
def qkv(ctx: BuildContext, p: QkvParams) -> FrameBody:
    """The three jobs, then the three matrices of the river sentence."""
    return STAGES[p.stage](ctx, p)
