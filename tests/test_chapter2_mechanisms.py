"""Chapter 2's mechanism pictures (issue 30) against oracles written out here: the RNN's attention
arcs (their weights a naive softmax of the decoder's scores), and the mechanism kinds wired into the
walkthrough (softmax, mask, scaling, concat) against the walkthrough's own engine results."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.frames.kit.mechanisms import scaling_spread, softmax_process
from attention_talk.frames.walkthrough.inputs import DECODER_GAIN, SENTENCE_MONEY, SENTENCE_RIVER, sentence, seq2seq
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
    assert [rnn[s].data.mode for s in sorted(rnn)] == ["encoder", "bottleneck", "context", "context"]
    for step in (3, 4):
        np.testing.assert_allclose(rnn[step].data.weights, expected, atol=1e-12)
    assert rnn[1].data.weights is None and rnn[2].data.weights is None
    c = next(t for f in frames["before-attention"] if f.step == 3 for t in f.tensors if t.name == "c")
    blend = sum(w * h for w, h in zip(expected, s2s.h, strict=True))  # c = Σ αⱼ hⱼ, the blend drawn
    np.testing.assert_allclose(c.values[0], blend, atol=1e-6)  # values carry 6 decimals


def test_masks_section_adds_the_engines_masks_to_the_scaled_scores(frames, deck) -> None:
    river = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    money_padded = sentence(SENTENCE_MONEY + " <pad>", deck.story.seed)
    # the causal mask is explained in section 4 (step 3), before the pipeline uses it; padding in section 6
    causal = dict(widgets(frames, "the-equation", "mask"))
    padding = dict(widgets(frames, "self-cross-masks", "mask"))
    assert sorted(causal) == [3] and sorted(padding) == [3] and len(money_padded.tokens) == 7
    masks = {"causal": causal[3], "padding": padding[3]}
    for step, s, blocked in (("causal", river, lambda r, c: c > r), ("padding", money_padded, lambda r, c: c == 6)):
        d = masks[step].data  # <pad> is the 7th token
        n = len(s.tokens)
        q, k = s.q, s.k
        naive = np.array([[sum(q[r, t] * k[c, t] for t in range(q.shape[1])) / np.sqrt(q.shape[1]) for c in range(n)]
                          for r in range(n)])
        np.testing.assert_allclose(d.scores, naive, atol=1e-12)
        for r in range(n):
            for c in range(n):
                assert (d.mask[r][c] is None) == blocked(r, c), (step, r, c)
                assert d.result[r][c] == (None if blocked(r, c) else d.scores[r][c])
        assert d.rows == d.cols == list(s.tokens) and d.stage == "added"
    # the causal map blocks exactly what the pipeline's causal head blocks
    np.testing.assert_array_equal(np.array([[v is None for v in r] for r in masks["causal"].data.mask]),
                                  np.isneginf(river.attention.mask))
    pipe = next(t for f in frames["pipeline"] for t in f.tensors if t.name == "S" and t.kind == "mask")
    np.testing.assert_array_equal(np.array([[v is None for v in r] for r in masks["causal"].data.mask]),
                                  np.array([[v is None or v == float("-inf") for v in r] for r in pipe.values]))


def test_scaling_counts_every_score_before_and_after_the_division(frames, deck) -> None:
    sc = dict(widgets(frames, "the-equation", "scaling"))
    assert sorted(sc) == [4] and sc[4].data.stage == "scaled"  # one step: both histograms on one axis
    d = sc[4].data
    rng = np.random.default_rng(deck.story.seed)
    q, k = rng.standard_normal((64, 128)), rng.standard_normal((64, 128))
    raw = q @ k.T  # (64, 64) the sample of dot products
    assert d.divisor == pytest.approx(np.sqrt(128))
    assert sum(d.raw_counts) == sum(d.scaled_counts) == raw.size
    np.testing.assert_array_equal(d.raw_counts, np.histogram(raw, bins=d.edges)[0])
    np.testing.assert_array_equal(d.scaled_counts, np.histogram(raw / np.sqrt(128), bins=d.edges)[0])
    np.testing.assert_allclose(d.raw_weights, naive_softmax(raw[0, :8]), atol=1e-12)
    np.testing.assert_allclose(d.scaled_weights, naive_softmax(raw[0, :8] / np.sqrt(128)), atol=1e-12)
    assert max(d.scaled_weights) < max(d.raw_weights)  # the softmax flattens
    assert d.peaks == "each"  # d_k = 128: the raw histogram drawn to its own height, not flat


def test_the_first_softmax_is_the_bank_rows_weights(frames, deck) -> None:
    """2/4: the softmax kind's e^x are exp(score − max) of the river map's “bank” row (q·k / √d_k,
    no mask), its weights the map's weights, its stack exactly 1."""
    river = sentence(SENTENCE_RIVER, deck.story.seed)
    i = river.index("bank")
    sm = dict(widgets(frames, "words-to-numbers", "softmax"))
    assert sorted(sm) == [4]
    d = sm[4].data
    n = len(river.tokens)
    row = np.array([sum(river.q[i, t] * river.k[c, t] for t in range(3)) / np.sqrt(3) for c in range(n)])
    np.testing.assert_allclose(d.scores, row, atol=1e-12)
    assert d.row_max == pytest.approx(row.max(), abs=1e-12)
    np.testing.assert_allclose(d.exps, [np.exp(v - row.max()) for v in row], atol=1e-12)
    np.testing.assert_allclose(d.weights, naive_softmax(row), atol=1e-12)
    np.testing.assert_allclose(d.weights, river.attention.weights[i], atol=1e-15)
    assert sum(d.weights) == pytest.approx(1.0) and d.stage == "divide" and d.fit == "one"
    assert d.labels == list(river.tokens)


def test_concat_blocks_are_the_two_heads_and_their_product_with_w_o(frames, deck) -> None:
    """8/4: the concat kind's blocks are the two selector heads' outputs (3 × 2 each), side by side
    3 × 4, times W_O (4 × 4); the row of O shown is concat(river) · W_O, summed out here."""
    from attention_talk.frames.walkthrough.heads import two_heads
    mh, w_o = two_heads(deck.story.seed)
    cw = dict(widgets(frames, "multi-head", "concat"))
    assert sorted(cw) == [4]
    d = cw[4].data
    assert [b.shape for b in d.blocks] == [(3, 2), (3, 2)] and d.concat == (3, 4) and d.w_o == (4, 4)
    assert d.output == (3, 4) and d.token == "river" and d.stage == "product"
    river = [*mh.heads[0].output[0], *mh.heads[1].output[0]]  # concat of the two heads' rows
    np.testing.assert_allclose(river, mh.concat[0], atol=1e-15)
    o = [sum(river[t] * w_o[t, c] for t in range(4)) for c in range(4)]
    np.testing.assert_allclose(d.values, o, atol=1e-12)
    assert d.columns == [1, 2, 3, 4]


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 9), st.integers(2, 9), st.integers(0, 10_000), st.data())
def test_scaling_spread_over_a_rows_first_keys(n_q, n_k, seed, data) -> None:
    """The generalisation chapter 2 uses: with k ≤ n_k labels, the row's softmax is over its first k
    keys (a naive softmax here); every score is still counted."""
    k = data.draw(st.integers(1, n_k))
    row = data.draw(st.integers(0, n_q - 1))
    s = np.random.default_rng(seed).normal(0, 3, (n_q, n_k))
    d = scaling_spread(s, 0.5, row, np.zeros(k), [f"k{i}" for i in range(k)], stage="scaled", raw_label="r",
                       scaled_label="s", row_title="t", peaks="each")
    np.testing.assert_allclose(d.raw_weights, naive_softmax(s[row, :k]), atol=1e-12)
    np.testing.assert_allclose(d.scaled_weights, naive_softmax(0.5 * s[row, :k]), atol=1e-12)
    assert sum(d.raw_counts) == sum(d.scaled_counts) == n_q * n_k and d.peaks == "each"  # all of the map


def test_scaling_spread_and_softmax_fit_refuse_what_they_cannot_draw() -> None:
    s = np.zeros((2, 3))
    with pytest.raises(ValueError, match="1 to 3 labels"):
        scaling_spread(s, 1.0, 0, np.zeros(4), list("abcd"), stage="raw", raw_label="r", scaled_label="s",
                       row_title="t")
    with pytest.raises(ValueError, match="fit 'one'"):
        softmax_process([1.0, 2.0], ["a", "b"], stage="exp", title="t", fit="one")


def test_cross_attention_rows_read_their_source_words(frames, deck) -> None:
    """6/2: the decoder's designed queries make each German word read the English word it translates
    (Hunde → dogs, jagen → chase, rote → red): the argmax of every row, recomputed with plain loops
    from the queries and the encoder states drawn beside the map, is its intended source word."""
    f = next(f for f in frames["self-cross-masks"] if any(t.name == "cross" for t in f.tensors))
    by = {t.name: t for t in f.tensors}
    q, h, w = (np.array(by[n].values, dtype=float) for n in ("cross_q", "cross_h", "cross"))
    intended = {"Hunde": "h(dogs)", "jagen": "h(chase)", "rote": "h(red)"}
    assert by["cross"].rows == list(intended)
    s2s = seq2seq(deck.story.seed)
    for r, word in enumerate(by["cross"].rows):
        scores = [sum(float(q[r, t]) * float(s2s.h[c, t]) for t in range(4)) for c in range(len(s2s.h))]
        weights = naive_softmax(np.array(scores))
        np.testing.assert_allclose(w[r], weights, atol=5e-6)
        assert by["cross"].cols[int(np.argmax(weights))] == intended[word], word
        assert sorted(weights)[-1] > 2 * sorted(weights)[-2]  # a clear winner, not a near tie
    np.testing.assert_allclose(h, s2s.h, atol=5e-6)
