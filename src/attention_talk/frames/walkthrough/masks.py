"""Section 6, self-attention, cross-attention, masks (``walk.variants``): where Q, K and V come
from, a cross-attention map, the causal and padding masks, and a token picker over real rows."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import attend, causal_mask, padding_mask
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Tensor, Widget
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_weights
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.mechanisms import mask_addition
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import SOURCE, TARGET, Sentence, sentence, seq2seq
from attention_talk.frames.walkthrough.shared import band, cards, causal_river, sentences, to_right

LAYOUT = {
    "sources": band(120, 230), "selfmap": box(LEFT, 380, 920, 390), "selfnote": to_right(1020, 420, 260),
    "cross": box(LEFT, 120, 760, 300), "cross_note": box(LEFT, 470, 760, 150),
    "cross_q": to_right(880, 120, 280), "cross_h": to_right(880, 430, 330),
    "mask": box(LEFT, 125, 1480, 530), "rule": box(160, 665, 1280, 90),
    "picker_map": box(LEFT, 120, 910, 640), "picker": to_right(1010, 120, 640),
}


class VariantParams(Params):
    stage: Literal["self", "cross", "causal", "padding", "picker"]


def _self(ctx: BuildContext) -> FrameBody:
    river, _ = sentences(ctx)
    toks, a = list(river.tokens), river.attention  # no mask: an encoder reads left and right
    t = tensor("selfA", "A, self-attention without a mask", "weights", a.weights, LAYOUT["selfmap"], rows=toks,
               cols=toks, digits=2, heat=True)
    both = note("both", LAYOUT["selfnote"], tokens=len(toks))
    return FrameBody(tensors=[derive_weights(t, a.masked, row_names=toks, col_names=toks)], notes=[both], widgets=[
        cards("src", LAYOUT["sources"], [card("self", kind="neutral"), card("search", kind="neutral")], columns=2)])


def _cross(ctx: BuildContext) -> FrameBody:
    s2s = seq2seq(ctx.deck.story.seed)
    q = cross_queries(s2s.h)  # (3, 4)
    a = attend(q, s2s.h, s2s.h, scale=1.0)
    tgt = list(TARGET[:3])
    states = [f"h({w})" for w in SOURCE]
    t = tensor("cross", "cross-attention weights", "weights", a.weights, LAYOUT["cross"], rows=tgt, cols=states,
               heat=True)
    qkv = note("qkv", LAYOUT["cross_note"], targets=len(tgt), sources=len(SOURCE), gain=f"{CROSS_GAIN:g}")
    return FrameBody(tensors=[derive_weights(t, a.masked, row_names=tgt, col_names=states),
                              *_cross_inputs(q, s2s.h, tgt, states)], notes=[qkv])


CROSS_GAIN = 2.0  # the designed score of a target word's query with its own source word's state


def cross_queries(h: np.ndarray) -> np.ndarray:
    """(3, 4) designed decoder queries: the query of target word t (Hunde, jagen, rote) solves
    q · h(source word t) = CROSS_GAIN and q · h(any other source word) = 0, so each target word reads
    the source word it translates (Hunde → dogs, jagen → chase, rote → red)."""
    n_tgt = 3
    return np.linalg.solve(h.T, CROSS_GAIN * np.eye(h.shape[0]))[:n_tgt]  # (3, 4): rows of CROSS_GAIN · H⁻ᵀ


def _cross_inputs(q: np.ndarray, h: np.ndarray, tgt: list[str], states: list[str]) -> list[Tensor]:
    """Beside the map, where its rows and columns come from: the decoder's queries (one per target
    word) and the encoder's states, which serve as both keys and values."""
    dims = [str(i + 1) for i in range(q.shape[1])]
    qt = tensor("cross_q", "Q: the decoder's queries (designed)", "query", q, LAYOUT["cross_q"], rows=tgt, cols=dims)
    derive_copy(qt, lambda r, c: (f"designed query of “{tgt[r]}”: scores {CROSS_GAIN:g} with h({SOURCE[r]}), 0 "
                                  f"with the other states; coordinate {c + 1}", float(q[r, c])),
                formula="designed", title=lambda r, c: f"q({tgt[r]}), coordinate {c + 1}")
    ht = tensor("cross_h", "K = V: the encoder's states", "key", h, LAYOUT["cross_h"], rows=states, cols=dims)
    derive_copy(ht, lambda r, c: (f"encoder state {states[r]}, coordinate {c + 1}", float(h[r, c])),
                formula="tanh(Wₓ xₜ + Wₕ hₜ₋₁)", title=lambda r, c: f"{states[r]}, coordinate {c + 1}")
    return [qt, ht]


def _mask_added(mask: np.ndarray, scaled: np.ndarray, toks: list[str], what: str, d_k: int) -> Widget:
    """The mask M (the engine's, 0 or −∞) laid onto the scaled scores and added (the ``mask`` kind)."""
    root = f"√{d_k}"
    data = mask_addition(scaled, mask, toks, toks, stage="added", scores_label=f"S / {root}", mask_label=f"M: {what}",
                         result_label=f"S / {root} + M", digits=1)
    return widget("mask", "mask-added", LAYOUT["mask"], data, kind="mask")


def _causal(ctx: BuildContext) -> FrameBody:
    """The causal head's scaled scores (the pipeline's) plus the causal mask."""
    river = causal_river(ctx)
    toks, a = list(river.tokens), river.attention
    m = causal_mask(len(toks))
    rule = note("rule", LAYOUT["rule"], "mask", allowed=int((m == 0).sum()), blocked=int((m != 0).sum()))
    return FrameBody(widgets=[_mask_added(m, a.scaled, toks, "causal", river.q.shape[1])], notes=[rule])


def padded_money(ctx: BuildContext) -> Sentence:
    """The money sentence padded by one filler token, as in a batch with a longer sentence."""
    _, money = sentences(ctx)
    return sentence(" ".join([*money.tokens, PAD]), ctx.deck.story.seed)


def _padding(ctx: BuildContext) -> FrameBody:
    padded = padded_money(ctx)
    toks = list(padded.tokens)
    keep = np.array([t != PAD for t in toks])
    m = padding_mask(keep)
    return FrameBody(widgets=[_mask_added(m, padded.attention.scaled, toks, "padding", padded.q.shape[1])],
                     notes=[note("rule", LAYOUT["rule"], "mask", padded=int((~keep).sum()))])


def _picker(ctx: BuildContext) -> FrameBody:
    """The causal head's weights (the pipeline's A): a row reads only its own and earlier tokens."""
    river = causal_river(ctx)
    w, toks = river.attention.weights, list(river.tokens)
    a = tensor("A", "A, the causal head's weights", "weights", w, LAYOUT["picker_map"], rows=toks, cols=toks,
               digits=2, heat=True)
    pick = widget("token-picker", "picker", LAYOUT["picker"], {
        "tokens": toks, "rows": [[float(x) for x in r] for r in w], "sums": [float(r.sum()) for r in w],
        "selected": river.index("boat"), "title": "its row, no reading ahead", "scale_max": 1.0, "causal": True},
        kind="weights")
    return FrameBody(tensors=[derive_weights(a, river.attention.masked, row_names=toks, col_names=toks)],
                     widgets=[pick])


PAD = "<pad>"
STAGES = {"self": _self, "cross": _cross, "causal": _causal, "padding": _padding, "picker": _picker}


@CHAPTER.builder("walk.variants", VariantParams, notes=("both", "qkv", "rule"), cards=("self", "search"))
def variants(ctx: BuildContext, p: VariantParams) -> FrameBody:
    """Where Q, K, V come from; the causal and padding masks; a token picker over real rows."""
    return STAGES[p.stage](ctx)
