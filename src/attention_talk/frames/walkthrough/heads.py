"""Section 7, multi-head attention (``walk.heads``): two selector heads on “river bank flooded”,
their weights and outputs, the concatenation and W_O, the shapes, and a caveat on reading maps."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.engine import MultiHead, multi_head
from attention_talk.formatting import number, shape, vector
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Note, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_output, derive_projection, derive_weights
from attention_talk.frames.kit.heads import concat_data
from attention_talk.frames.kit.layout import LEFT, box, rows
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import MH_TOKENS, MH_X
from attention_talk.frames.walkthrough.shared import band, cards, equation_widget, to_right

# Steps 1–4 on one grid: X top left; A¹ and the notes top right; under them each head's input
# columns, replaced by that head's output Z where it is computed. Steps 5–6: concat, W_O and O on top,
# the formula under them, then the note (step 5) or the shapes (step 6).
LAYOUT = {
    "X": box(LEFT, 120, 420, 260), "selectors": to_right(540, 130, 240),
    "A1": box(520, 120, 520, 260), "row": to_right(1080, 130, 230),
    "Z1": box(520, 420, 420, 260), "Z2": box(980, 420, 420, 260),
    "concat": box(LEFT, 120, 470, 330), "WO": box(560, 120, 420, 330), "O": box(1020, 120, 520, 330),
    "eq": band(470, 110), "concat_note": to_right(1080, 130, 250), "shapes": band(590, 170),
    "concat_blocks": band(120, 640),
    "caveat_map": box(LEFT, 120, 620, 600), "caveat": to_right(760, 250, 300),
}
TOKS = list(MH_TOKENS)
WIDE = ["1", "2", "3", "4"]  # the model's four features
HEAD_COLS = (["1", "2"], ["3", "4"])  # the features each selector head reads
RIVER = Highlight(rows=[0])


class HeadsParams(Params):
    stage: Literal["input", "head1", "out1", "head2", "concat", "shapes", "caveat"]


def two_heads(seed: int) -> tuple[MultiHead, np.ndarray]:
    """Two selector heads on MH_X and a seeded (4, 4) output projection W_O."""
    sel = np.eye(4)  # selector projections: head 1 = features 1–2, head 2 = features 3–4
    rng = np.random.default_rng(seed)
    w_o = np.round(rng.normal(0.0, 0.6, (4, 4)), 2)  # (4, 4) an illustrative output projection
    return multi_head(MH_X, sel, sel, sel, w_o, heads=2), w_o


def _x() -> Tensor:
    xt = tensor("X", "X", "input", MH_X, LAYOUT["X"], rows=TOKS, cols=WIDE, digits=0)
    return derive_copy(xt, lambda r, c: (f"designed input: “{TOKS[r]}”, feature {c + 1}", float(MH_X[r, c])),
                       formula="designed", title=lambda r, c: f"x({TOKS[r]}), feature {c + 1}")


def _weights1(mh: MultiHead) -> Tensor:
    h1 = mh.heads[0]
    at = tensor("A1", "head 1 weights A¹", "weights", h1.weights, LAYOUT["A1"], rows=TOKS, cols=TOKS, digits=3,
                heat=True, highlight=RIVER)
    return derive_weights(at, h1.masked, row_names=TOKS, col_names=TOKS)


def _output(mh: MultiHead, i: int) -> Tensor:
    """Head ``i``'s output Z = A·V (0-based ``i``), drawn under the weights."""
    h, sup = mh.heads[i], "¹²"[i]
    t = tensor(f"Z{i + 1}", f"head {i + 1}: Z{sup} = A{sup}·V{sup}", "output", h.output, LAYOUT[f"Z{i + 1}"],
               rows=TOKS, cols=HEAD_COLS[i], digits=3, highlight=RIVER)
    return derive_output(t, h.weights, h.v, row_names=TOKS, key_names=TOKS)


def _weights_note(mh: MultiHead) -> Note:
    """Head 1's row for “river” (the slide's text ``row-weights``, shared by two steps)."""
    h1 = mh.heads[0]
    return note("row", LAYOUT["row"], "weights", key="row-weights", weights=vector(h1.weights[0], 3),
                key_width=h1.q.shape[1], scale=number(h1.scale, 3))


def _reads(i: int) -> Tensor:
    """Head ``i``'s input (0-based): the columns of X its selector projection keeps, so Q = K = V. It
    sits where the head's output Z will appear."""
    cols, sup = HEAD_COLS[i], "¹²"[i]
    sel = MH_X[:, [int(c) - 1 for c in cols]]  # (3, 2)
    t = tensor(f"X{i + 1}", f"head {i + 1}: Q{sup} = K{sup} = V{sup}", "input", sel, LAYOUT[f"Z{i + 1}"],
               rows=TOKS, cols=cols, digits=0)
    return derive_copy(t, lambda r, c: (f"X column {cols[c]}, “{TOKS[r]}”: the selector keeps it",
                                        float(sel[r, c])), formula=f"X[:, {'–'.join(cols)}]",
                       title=lambda r, c: f"head {i + 1}, “{TOKS[r]}”, column {cols[c]}")


def _input(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    first, second = ("–".join(cols) for cols in HEAD_COLS)
    return FrameBody(tensors=[_x(), _reads(0), _reads(1)], notes=[
        note("sel", LAYOUT["selectors"], "input", first=first, second=second, key_width=mh.heads[0].q.shape[1])])


def _head1(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    return FrameBody(tensors=[_x(), _weights1(mh), _reads(0), _reads(1)], notes=[_weights_note(mh)])


def _out1(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    return FrameBody(tensors=[_x(), _weights1(mh), _output(mh, 0), _reads(1)], notes=[_weights_note(mh)])


def _head2(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    h2 = mh.heads[1]
    row = note("row", LAYOUT["row"], "output", key="row-heads", first=vector(mh.heads[0].output[0], 3),
               second=vector(h2.output[0], 3), weights=vector(h2.weights[0], 3))
    return FrameBody(tensors=[_x(), _weights1(mh), _output(mh, 0), _output(mh, 1)], notes=[row])


def _mixed(mh: MultiHead, w_o: np.ndarray) -> list[Tensor]:
    """concat(Z¹, Z²), W_O and O side by side (steps 5 and 6)."""
    ct = tensor("cat", "concat(Z¹, Z²)", "output", mh.concat, LAYOUT["concat"], rows=TOKS, cols=WIDE,
                digits=3, highlight=RIVER)
    derive_copy(ct, lambda r, c: (f"head {1 + c // 2} output, “{TOKS[r]}”, column {c % 2 + 1}",
                                  float(mh.concat[r, c])), formula="[head 1 | head 2]",
                title=lambda r, c: f"concat({TOKS[r]}), column {c + 1}")
    wt = tensor("WO", "W_O (illustrative)", "weight", w_o, LAYOUT["WO"], digits=2, cols=WIDE)
    derive_copy(wt, lambda r, c: ("a parameter: learned in a real model, seeded here", float(w_o[r, c])),
                formula="parameter", title=lambda r, c: f"W_O[{r + 1}, {c + 1}]")
    yt = tensor("O", "O = concat(Z¹, Z²)·W_O", "output", mh.output, LAYOUT["O"], rows=TOKS, cols=WIDE, digits=3,
                highlight=RIVER)
    derive_projection(yt, mh.concat, w_o, x_name="concat", w_name="W_O", row_names=TOKS)
    return [ct, wt, yt]  # X steps aside: concat, W_O and O are the story


def _concat(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    """The ``concat`` kind: the two heads' outputs as blocks slide together, then one product with
    W_O back to the model width; the row of O shown is the engine's (the next step's matrices)."""
    row = note("concat-row", LAYOUT["concat_note"], "output", key="row-concat", row=vector(mh.concat[0], 3))
    data = concat_data(mh, TOKS, 0, "product")
    return FrameBody(widgets=[widget("concat", "concat", LAYOUT["concat_blocks"], data, kind="output")], notes=[row])


def _shapes(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    """The same three matrices and formula; the shapes of every stage under them."""
    n, d = MH_X.shape
    dk = mh.heads[0].q.shape[1]
    return FrameBody(tensors=_mixed(mh, w_o), widgets=[cards("shapes", LAYOUT["shapes"], [
        card("shape-x", kind="input", shape=shape(n, d)),
        card("shape-qkv", kind="neutral", shape=shape(n, dk)),
        card("shape-a", kind="weights", shape=shape(n, n)),
        card("shape-out", kind="output", shape=shape(n, dk)),
        card("shape-concat", kind="output", concat=shape(n, mh.concat.shape[1]), shape=shape(*mh.output.shape)),
    ], columns=5, arrows=True), equation_widget("eq", LAYOUT["eq"], "multihead")])


def _caveat(mh: MultiHead, w_o: np.ndarray) -> FrameBody:
    """The section's own two maps, A¹ and A² of river, bank, flooded, beside the caveat: what a
    bright cell does and does not say."""
    maps = []
    for i, b in enumerate(rows(LAYOUT["caveat_map"], [1, 1], gap=40)):
        h, sup = mh.heads[i], "¹²"[i]
        t = tensor(f"map{i + 1}", f"head {i + 1}: A{sup}", "weights", h.weights, b, rows=TOKS, cols=TOKS, digits=2,
                   heat=True)
        maps.append(derive_weights(t, h.masked, row_names=TOKS, col_names=TOKS))
    return FrameBody(tensors=maps,
                     widgets=[cards("caveat", LAYOUT["caveat"], [card("caveat", kind="neutral")], columns=1)])


STAGES = {"input": _input, "head1": _head1, "out1": _out1, "head2": _head2, "concat": _concat,
          "shapes": _shapes, "caveat": _caveat}


@CHAPTER.builder("walk.heads", HeadsParams, notes=("sel", "row-weights", "row-heads", "row-concat"),
                 cards=("shape-x", "shape-qkv", "shape-a", "shape-out", "shape-concat", "caveat"))
def heads(ctx: BuildContext, p: HeadsParams) -> FrameBody:
    """Two selector heads on river, bank, flooded: weights, outputs, concat, W_O, shapes."""
    mh, w_o = two_heads(ctx.deck.story.seed)
    return STAGES[p.stage](mh, w_o)
