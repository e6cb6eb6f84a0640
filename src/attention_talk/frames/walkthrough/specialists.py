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
from attention_talk.frames.kit.words import note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import FEATURES, SPEC_COLS, SPEC_TOKENS, spec_weights, spec_x
from attention_talk.frames.walkthrough.shared import band, bars, to_right

LAYOUT = {
    "picker": band(120, 640),
    "X": box(LEFT, 130, 980, 440), "split": to_right(1090, 140, 430), "row": band(600, 150),
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


def _prev_summary(a: np.ndarray) -> str:
    hits = sum(int(np.argmax(a[i]) == i - 1) for i in range(1, len(TOKS)))
    share = float(np.mean([a[i, i - 1] for i in range(1, len(TOKS))]))
    return (f"Head 1 follows nearby syntax: for {hits} of the {len(TOKS) - 1} tokens that have a previous "
            f"word, the largest weight sits on it (on average {number(share, 2)}). It matches on the "
            "position half of each row.")


def _ref_summary(a: np.ndarray) -> str:
    top = np.argsort(a[BANK])[::-1][:2]
    return (f"Head 2 makes a long-range reference: “bank” puts {number(a[BANK, top[0]], 2)} on "
            f"“{TOKS[top[0]]}”, {BANK - top[0]} tokens back, and {number(a[BANK, top[1]], 2)} on "
            f"“{TOKS[top[1]]}”. It matches on the word half: water words answer nouns.")


def picker(b: Box, selected: int = 0, *, summary: bool = True) -> Widget:
    """The head picker over both heads' maps, "bank"'s row outlined; ``summary`` prints what each does."""
    mh, _ = specialists()
    a1, a2 = mh.heads[0].weights, mh.heads[1].weights
    return widget("head-picker", "heads-pick", b, {
        "tokens": TOKS, "selected": selected, "focus": BANK, "show_summary": summary, "heads": [
            {"title": "head 1 · previous word", "weights": a1.tolist(), "summary": _prev_summary(a1)},
            {"title": "head 2 · long-range reference", "weights": a2.tolist(), "summary": _ref_summary(a2)}]},
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
    t = tensor("blend", "word features: every token, and “bank”'s output O", "output", rows, LAYOUT["rows"],
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


@CHAPTER.builder("walk.specialists", SpecialistParams, notes=("split", "blend"))
def specialists_builder(ctx: BuildContext, p: SpecialistParams) -> FrameBody:
    """Two designed heads over d_model 8: a head picker, the split into two 4-wide heads, the blend."""
    return STAGES[p.stage]()
