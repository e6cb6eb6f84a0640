"""Section 2, before attention (``walk.rnn``): an RNN encoder's states, the single-vector
bottleneck, attention over every encoder state, and the step to the Transformer."""

from __future__ import annotations

from typing import Literal

import numpy as np

from attention_talk.formatting import number, vector
from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Highlight, Tensor
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.derivations import derive_copy, derive_output
from attention_talk.frames.kit.layout import LEFT, box
from attention_talk.frames.kit.tensors import tensor
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.kit.words import card, note
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.inputs import SOURCE, TARGET, Seq2Seq, seq2seq
from attention_talk.frames.walkthrough.shared import band, bars, cards, to_right

_NOTE = to_right(1000, 540, 220)  # one place for the note of every step: it does not jump
LAYOUT = {
    "rnn": band(120, 400),
    "states": box(LEFT, 510, 700, 250), "recurrence": _NOTE,
    "alpha": box(LEFT, 536, 880, 224), "alpha_note": _NOTE,
    "context": box(LEFT, 560, 900, 170), "fresh": _NOTE,
    "history": band(540, 220),
}
STATES = [f"h{'₁₂₃₄'[i]}" for i in range(len(SOURCE))]
COORDS = [str(i + 1) for i in range(4)]
TYPICAL_WIDTH = 512  # a common hidden-state width of the RNN translators of 2014–2015, for scale


class RnnParams(Params):
    stage: Literal["encoder", "bottleneck", "attention", "context", "transformer"]


def _with_diagram(s2s: Seq2Seq, mode: Literal["encoder", "bottleneck", "attention", "context"]) -> FrameBody:
    """A body holding the RNN diagram: source words, states, target words; α (the arcs' widths, and
    the blend's shares in context mode) only once attention is drawn."""
    w = s2s.attention.weights[0]
    return FrameBody(widgets=[widget("rnn", "rnn", LAYOUT["rnn"], {
        "source": list(SOURCE), "states": STATES, "target": list(TARGET), "mode": mode,
        "weights": [float(x) for x in w] if mode in ("attention", "context") else None, "focus": len(TARGET) - 1,
        "values": [[float(v) for v in h] for h in s2s.h] if mode == "encoder" else None})])


def _states(s2s: Seq2Seq, highlight: Highlight | None = None) -> Tensor:
    """The encoder states H under the diagram (they stay put while the decoder's view changes)."""
    t = tensor("H", "encoder states H (one row per hᵢ)", "key", s2s.h, LAYOUT["states"], rows=STATES, cols=COORDS,
               highlight=highlight)
    return derive_copy(t, lambda r, c: (
        f"tanh(Wₓ x({SOURCE[r]}) + Wₕ h{'₀₁₂₃'[r]}), coordinate {c + 1}: the recurrence", float(s2s.h[r, c])),
        formula="tanh(Wₓ xₜ + Wₕ hₜ₋₁)", title=lambda r, c: f"{STATES[r]}, coordinate {c + 1}")


def _encoder(s2s: Seq2Seq) -> FrameBody:
    body = _with_diagram(s2s, "encoder")
    body.tensors.append(_states(s2s))
    body.notes.append(note("rec", LAYOUT["recurrence"], width=s2s.h.shape[1], typical=TYPICAL_WIDTH))
    return body


def _bottleneck(s2s: Seq2Seq) -> FrameBody:
    """The same states, only the last one outlined: all the decoder receives."""
    body = _with_diagram(s2s, "bottleneck")
    body.tensors.append(_states(s2s, Highlight(rows=[len(STATES) - 1])))
    body.notes.append(note("neck", LAYOUT["recurrence"], last=vector(s2s.h[-1]), width=s2s.h.shape[1]))
    return body


def _attention(s2s: Seq2Seq) -> FrameBody:
    body = _with_diagram(s2s, "attention")
    w = s2s.attention.weights[0]
    top = int(np.argmax(w))
    body.widgets.append(bars("alpha", LAYOUT["alpha"], f"αᵢⱼ for the output word “{TARGET[-1]}”", STATES, w,
                             highlight=top))
    body.notes.append(note("alpha", LAYOUT["alpha_note"], "weights", largest=number(w.max(), 2), state=STATES[top],
                           word=SOURCE[top]))
    return body


def _context(s2s: Seq2Seq) -> FrameBody:
    body = _with_diagram(s2s, "context")
    mix = " + ".join(f"{number(x, 2)}·{s}" for x, s in zip(s2s.attention.weights[0], STATES, strict=True))
    t = tensor("c", f"c = {mix}", "output", s2s.attention.output, LAYOUT["context"], rows=["c"], cols=COORDS,
               digits=3)
    body.tensors.append(derive_output(t, s2s.attention.weights, s2s.h, row_names=["c"], key_names=STATES,
                                      v_name="h"))
    body.notes.append(note("fresh", LAYOUT["fresh"], "output"))
    return body


def _transformer(s2s: Seq2Seq) -> FrameBody:
    body = _with_diagram(s2s, "context")  # the diagram stays: the history cards sit under it
    body.widgets.append(cards("hist", LAYOUT["history"], [card("recurrent", kind="neutral"),
                                                          card("transformer", kind="neutral")],
                              columns=2, arrows=True))
    return body


STAGES = {"encoder": _encoder, "bottleneck": _bottleneck, "attention": _attention, "context": _context,
          "transformer": _transformer}


@CHAPTER.builder("walk.rnn", RnnParams, notes=("rec", "neck", "alpha", "fresh"), cards=("recurrent", "transformer"))
def rnn(ctx: BuildContext, p: RnnParams) -> FrameBody:
    """An RNN encoder's states, the single-vector bottleneck, then attention over every state."""
    return STAGES[p.stage](seq2seq(ctx.deck.story.seed))
