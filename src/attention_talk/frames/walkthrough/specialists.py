"""Section 7, heads that specialise (``walk.specialists``): two designed causal heads over a model
width of 8 split into two 4-wide heads (``inputs.spec_x`` and ``spec_weights``). One
head follows the previous word, the other reaches back to a long-range reference; a head picker
switches between their maps; each token's output is a blend of rows, not a pointer to one."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import numpy as np

from attention_talk.engine import MultiHead, multi_head
from attention_talk.formatting import number, shape, vector
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import Box, FrameBody, Highlight, Tensor, Widget
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import FEATURES, SPEC_COLS, SPEC_TOKENS, spec_weights, spec_x
from attention_talk.frames.walkthrough.shared import band, bars, to_right

LAYOUT = {
    "picker": band(120, 640),
    "X": box(LEFT, 120, 1060, 450), "split": to_right(1160, 130, 440), "row": band(600, 150),
    "rows": box(LEFT, 130, 760, 560), "bars": to_right(880, 130, 330), "blend": to_right(880, 490, 200),
}
TOKS = list(SPEC_TOKENS)
BANK = TOKS.index("bank")
WORDS = list(FEATURES)


class SpecialistParams(Params):
    stage: Literal["specialise", "split", "blend"]


@lru_cache(maxsize=1)
def specialists() -> tuple[MultiHead, np.ndarray]:
    """The two designed causal heads on the six-token sentence, and its input X (6, 8)."""
    x = spec_x()
    return multi_head(x, *spec_weights(), heads=2, causal=True), x


def _prev_figures(a: np.ndarray) -> dict[str, object]:
    """What head 1's summary quotes: how often the largest weight sits on the previous word."""
    hits = sum(int(np.argmax(a[i]) == i - 1) for i in range(1, len(TOKS)))
    share = float(np.mean([a[i, i - 1] for i in range(1, len(TOKS))]))
    return {"hits": hits, "with_previous": len(TOKS) - 1, "share": number(share, 2)}


def _ref_figures(a: np.ndarray) -> dict[str, object]:
    """What head 2's summary quotes: the two tokens “bank” weighs most, and how far back the first is."""
    top = np.argsort(a[BANK])[::-1][:2]
    return {"first_weight": number(a[BANK, top[0]], 2), "first": TOKS[top[0]], "back": BANK - top[0],
            "second_weight": number(a[BANK, top[1]], 2), "second": TOKS[top[1]]}


# each head's card in the picker (its title and summary: the deck's words) and what its summary quotes
HEAD_CARDS = (("head-previous", _prev_figures), ("head-reference", _ref_figures))


def picker(b: Box, selected: int = 0, *, summary: bool = True) -> Widget:
    """The head picker over both heads' maps, "bank"'s row outlined; ``summary`` prints what each does.
    Each builder that draws it declares the cards ``HEAD_CARDS`` (the words of the heads)."""
    mh, _ = specialists()
    heads = []
    for (id, figures), head in zip(HEAD_CARDS, mh.heads, strict=True):
        words = card(id, **figures(head.weights))
        heads.append({"title": words["title"], "weights": head.weights.tolist(), "summary": words["body"]})
    return widget("head-picker", "heads-pick", b, {
        "tokens": TOKS, "selected": selected, "focus": BANK, "show_summary": summary, "heads": heads},
        kind="weights")


def _specialise() -> FrameBody:
    return FrameBody(widgets=[picker(LAYOUT["picker"])])


def _x_tensor(x: np.ndarray) -> Tensor:
    t = tensor("X8", f"X · d_model = {x.shape[1]}: word half | position half", "input", x, LAYOUT["X"],
               rows=TOKS, cols=list(SPEC_COLS), max_cols=8, digits=2, highlight=Highlight(rows=[BANK]))
    return derive_copy(t, lambda r, c: (
        f"designed: “{TOKS[r]}”, {'word feature' if c < 4 else 'position feature'} {SPEC_COLS[c]}", float(x[r, c])),
        formula="designed", title=lambda r, c: f"x({TOKS[r]}), {SPEC_COLS[c]}")


def _split() -> FrameBody:
    mh, x = specialists()
    n, d = x.shape
    dk = mh.heads[0].q.shape[1]
    cat = mh.concat[BANK:BANK + 1]
    ct = tensor("cat8", f"[Z¹ | Z²] for “bank”: {dk} + {dk} = {d} numbers", "output", cat, LAYOUT["row"],
                rows=["bank"], cols=["Z¹", *[""] * (dk - 1), "Z²", *[""] * (dk - 1)],
                max_cols=8, digits=2)
    derive_copy(ct, lambda r, c: (f"head {1 + c // dk}'s output for “bank”, column {c % dk + 1}",
                                  float(cat[0, c])), formula="[Z¹ | Z²]", title=lambda r, c: f"concat, column {c + 1}")
    split = note("split", LAYOUT["split"], width=d, head_count=len(mh.heads), head_width=dk,
                 w_qk=shape(d, dk), out=shape(n, dk), w_o=shape(*mh.w_o.shape))
    return FrameBody(tensors=[_x_tensor(x), ct], notes=[split])


def _blend() -> FrameBody:
    mh, x = specialists()
    out = mh.output[BANK, :4]  # (4,)  the word half of bank's output
    rows = np.vstack([x[:, :4], out])  # (7, 4)
    z1, z2 = mh.heads[0].output[BANK], mh.heads[1].output[BANK]
    t = tensor("blend", "word features, and O(bank)", "output", rows, LAYOUT["rows"],
               rows=[*TOKS, "O(bank)"], cols=WORDS, digits=2, highlight=Highlight(rows=[len(TOKS)]))
    derive_copy(t, lambda r, c: (
        (f"designed word feature of “{TOKS[r]}”", float(rows[r, c])) if r < len(TOKS) else
        (f"½ · Z¹ {number(z1[c], 3)} + ½ · Z² {number(z2[c], 3)} (W_O averages the heads)", float(out[c]))),
        formula="X, and O = [Z¹ | Z²]·W_O", title=lambda r, c: f"{t.rows[r]}, {WORDS[c]}")
    dist = np.linalg.norm(x[:, :4] - out, axis=1)  # (6,)  distance of O(bank) to each token's word row
    near = int(np.argmin(dist))
    w2 = mh.heads[1].weights[BANK]
    blend = note("blend", LAYOUT["blend"], "output", row=vector(out, 2), nearest=TOKS[near],
                 distance=number(dist[near], 2))
    return FrameBody(tensors=[t], notes=[blend], widgets=[
        bars("w2", LAYOUT["bars"], "head 2's weights for “bank”", TOKS, w2, highlight=int(np.argmax(w2)))])


STAGES = {"specialise": _specialise, "split": _split, "blend": _blend}


@CHAPTER.builder("walk.specialists", SpecialistParams, notes=("split", "blend"),
                 cards=tuple(id for id, _ in HEAD_CARDS))
def specialists_builder(ctx: BuildContext, p: SpecialistParams) -> FrameBody:
    """Two designed heads over d_model 8: a head picker, the split into two 4-wide heads, the blend."""
    return STAGES[p.stage]()
