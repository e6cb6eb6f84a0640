"""Chapter 2's mechanism pictures (issue 30) against oracles written out here: the RNN's attention
arcs (their weights a naive softmax of the decoder's scores), and the mechanism kinds wired into the
walkthrough (softmax, mask, scaling, concat) against the walkthrough's own engine results."""

from __future__ import annotations

import numpy as np

from attention_talk.frames.walkthrough.inputs import DECODER_GAIN, seq2seq
from attention_talk.paths import data_dir

DECK_ID = "attention-walkthrough"
DECK = data_dir("slides") / f"{DECK_ID}.yaml"


def naive_softmax(row: np.ndarray) -> np.ndarray:
    """exp(x − max) / Σ, with −∞ giving exactly 0, written out."""
    row = np.asarray(row, dtype=np.float64)
    top = max(v for v in row if v != -np.inf)
    e = np.array([0.0 if v == -np.inf else np.exp(v - top) for v in row])
    return e / e.sum()


def widgets(frames, slide: str, wtype: str) -> list:
    return [(f.step, w) for f in frames[slide] for w in f.widgets if w.type == wtype]


def test_rnn_arcs_are_the_softmax_of_the_decoder_scores(frames, deck) -> None:
    s2s = seq2seq(deck.story.seed)
    scores = [DECODER_GAIN * sum(float(a) * float(b) for a, b in zip(s2s.query[0], h, strict=True)) for h in s2s.h]
    expected = naive_softmax(np.array(scores))
    rnn = dict(widgets(frames, "before-attention", "rnn"))
    assert [rnn[s].data.mode for s in sorted(rnn)] == ["encoder", "bottleneck", "attention", "context", "context"]
    for step in (3, 4, 5):
        np.testing.assert_allclose(rnn[step].data.weights, expected, atol=1e-12)
    assert rnn[1].data.weights is None and rnn[2].data.weights is None
    c = next(t for f in frames["before-attention"] if f.step == 4 for t in f.tensors if t.name == "c")
    blend = sum(w * h for w, h in zip(expected, s2s.h, strict=True))  # c = Σ αⱼ hⱼ, the blend drawn
    np.testing.assert_allclose(c.values[0], blend, atol=1e-6)  # values carry 6 decimals
