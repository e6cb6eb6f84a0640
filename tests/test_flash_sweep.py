"""The ``flash`` widget's sweep (frames/kit/flash.py, walk.flash on slide 9): every tile's running
max, sum and output equal ``engine.flash_attend``'s tiles and a naive oracle written out here (the
softmax over the keys seen so far), the rescale splits ℓ into the old sum shrunk by e^(m_before − m)
and the tile's own sum, and the last tiles end at the pipeline's Z = softmax(QKᵀ/√d_k + M)·V."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_talk.engine import flash_attend
from attention_talk.formatting import number
from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.frames.kit.flash import flash_sweep, sweep_stage
from attention_talk.frames.walkthrough.inputs import SENTENCE_RIVER, sentence
from attention_talk.paths import data_dir

DECK_ID = "attention-walkthrough"


def naive_scores(q: np.ndarray, k: np.ndarray, causal: bool) -> np.ndarray:
    """QKᵀ/√d_k, −∞ above the diagonal when causal (self-attention: query i at position i)."""
    s = q @ k.T / np.sqrt(q.shape[1])
    if causal:
        s = np.where(np.triu(np.ones(s.shape, dtype=bool), k=1), -np.inf, s)
    return s


def naive_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """softmax(QKᵀ/√d_k + M)·V, written out row by row."""
    s = naive_scores(q, k, causal)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def seen_so_far(q, k, v, causal, row: int, upto: int) -> tuple[float, float, np.ndarray]:
    """The oracle for a running state: over keys [0, upto) of query ``row``, the max score m, the
    sum ℓ = Σ e^(s − m) and the output Σ e^(s − m)·v / ℓ."""
    s = naive_scores(q, k, causal)[row, :upto]
    m = s.max()
    e = np.exp(s - m)
    return float(m), float(e.sum()), e @ v[:upto] / e.sum()


def check_sweep(data, q, k, v, causal: bool, block: int) -> None:
    fa = flash_attend(q, k, v, block_size=block, causal=causal)
    assert len(data.tiles) == len(fa.tiles)
    last = {}
    for t, ref in zip(data.tiles, fa.tiles, strict=True):
        assert (t.rows, t.cols) == (ref.rows, ref.cols)
        np.testing.assert_allclose(t.m, ref.m, rtol=0, atol=1e-12)
        np.testing.assert_allclose(t.l, ref.l, rtol=0, atol=1e-12)
        np.testing.assert_allclose(t.o, ref.o, rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.add(t.kept, t.added), t.l, rtol=1e-12, atol=1e-12)  # ℓ = kept + added
        for i, row in enumerate(range(*t.rows)):
            m, l, o = seen_so_far(q, k, v, causal, row, t.cols[1])  # noqa: E741
            assert t.m[i] == pytest.approx(m, abs=1e-12) and t.l[i] == pytest.approx(l, rel=1e-10)
            np.testing.assert_allclose(t.o[i], o, atol=1e-10)
            before = last.get(row)
            if before is None:  # the row's first tile: nothing to rescale
                assert t.m_before[i] is None and t.l_before[i] == 0 and t.alpha[i] == 0
            else:
                assert t.m_before[i] == before.m[before_i(before, row)]
                assert t.l_before[i] == before.l[before_i(before, row)]
                assert t.alpha[i] == pytest.approx(np.exp(t.m_before[i] - t.m[i]), rel=1e-12)
                assert 0 < t.alpha[i] <= 1
                # it shrinks only for a new max
                assert t.m[i] >= t.m_before[i] and (t.m[i] > t.m_before[i] or t.alpha[i] == 1)
            assert t.why_l[i].endswith(f"= {number(t.l[i], 3)}") and t.why_m[i].endswith(f"= {number(t.m[i], 3)}")
            assert [w.rsplit("= ", 1)[1] for w in t.why_o[i]] == [number(x, 2) for x in t.o[i]]
        for row in range(*t.rows):
            last[row] = t
    final = np.array([last[r].o[before_i(last[r], r)] for r in range(q.shape[0])])
    np.testing.assert_allclose(final, naive_attention(q, k, v, causal), atol=1e-10)
    assert data.max_diff == pytest.approx(float(np.abs(final - np.asarray(data.exact)).max()), abs=1e-15)


def before_i(tile, row: int) -> int:
    return row - tile.rows[0]


@pytest.fixture(scope="module")
def flash_frames():
    frames = build_deck_frames(load_deck(data_dir("slides") / f"{DECK_ID}.yaml"))["the-cost"]
    return [(f, w) for f in frames for w in f.widgets if w.type == "flash"]


def test_the_sweep_on_slide_9_is_flash_attend_and_ends_at_the_pipelines_z(flash_frames) -> None:
    deck = load_deck(data_dir("slides") / f"{DECK_ID}.yaml")
    river = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    pipeline_z = naive_attention(river.q, river.k, river.v, causal=True)  # softmax(QKᵀ/√d + M)·V, written here
    np.testing.assert_allclose(river.attention.output, pipeline_z, atol=1e-12)
    assert [(w.data.stage, w.data.current) for _, w in flash_frames] == [("tile", 0), ("tile", 2), ("done", 2)]
    for _, w in flash_frames:
        check_sweep(w.data, river.q, river.k, river.v, True, w.data.block)
        np.testing.assert_allclose(w.data.exact, pipeline_z, atol=1e-12)
    done = flash_frames[-1][1].data
    assert done.final and done.max_diff < 1e-12
    assert [s.model_dump() for s in done.skipped] == [{"rows": (0, 4), "cols": (4, 7)}]
    # tile 3 brings "bank" a larger score: its old sum shrinks by e^(m_before − m) < 1
    t3 = done.tiles[2]
    bank = river.tokens.index("bank", 4) - t3.rows[0]
    assert t3.alpha[bank] < 1 and t3.kept[bank] < t3.l_before[bank]
    assert f"× {number(t3.alpha[bank], 3)}" in t3.story


def test_every_score_derivation_recomputes_its_score(flash_frames) -> None:
    deck = load_deck(data_dir("slides") / f"{DECK_ID}.yaml")
    river = sentence(SENTENCE_RIVER, deck.story.seed, causal=True)
    s = naive_scores(river.q, river.k, causal=True)
    for t in flash_frames[-1][1].data.tiles:
        for i, row in enumerate(t.why_s):
            for j, why in enumerate(row):
                value = s[t.rows[0] + i, t.cols[0] + j]
                assert why.endswith("(causal mask)") if value == -np.inf else why.endswith(f"= {number(value, 2)}")


@pytest.mark.parametrize(("tile", "skip", "want"), [(1, False, ("tile", 0)), (3, False, ("tile", 2)),
                                                    (9, False, ("tile", 2)), (2, True, ("skip", 1)),
                                                    (0, False, ("done", 2))])
def test_sweep_stage(tile, skip, want) -> None:
    assert sweep_stage(tile, skip, 3) == want


def test_flash_sweep_refuses_what_it_cannot_draw() -> None:
    q = np.ones((3, 2))
    with pytest.raises(ValueError, match="tokens"):
        flash_sweep(q, q, q, ["a", "b"], q, block_size=2, causal=True, stage="tile", current=0)
    with pytest.raises(ValueError, match="shape"):
        flash_sweep(q, q, q, ["a", "b", "c"], np.ones((2, 2)), block_size=2, causal=True, stage="tile", current=0)
    with pytest.raises(ValueError, match="current"):
        flash_sweep(q, q, q, ["a", "b", "c"], q, block_size=2, causal=True, stage="tile", current=9)


@st.composite
def heads(draw):
    n, d = draw(st.integers(1, 9)), draw(st.integers(1, 4))
    values = st.floats(-3, 3, allow_nan=False, width=64)
    q, k, v = (draw(arrays(np.float64, (n, d), elements=values)) for _ in range(3))
    return q, k, v, draw(st.integers(1, 4)), draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(heads())
def test_flash_sweep_property(head) -> None:
    """On any head: every running state is the softmax over the keys seen so far, ℓ = kept + added,
    the rescale factor is e^(m_before − m), and the last tiles give softmax(QKᵀ/√d_k + M)·V."""
    q, k, v, block, causal = head
    tokens = [f"t{i}" for i in range(q.shape[0])]
    exact = naive_attention(q, k, v, causal)
    data = flash_sweep(q, k, v, tokens, exact, block_size=block, causal=causal, stage="done", current=0)
    check_sweep(data, q, k, v, causal, block)
    n_blocks = -(-q.shape[0] // block)
    assert len(data.tiles) + len(data.skipped) == n_blocks ** 2
    assert len(data.skipped) == (n_blocks * (n_blocks - 1) // 2 if causal else 0)
