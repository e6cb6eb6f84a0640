"""A title slide's picture (frames/kit/cover.py): the deck's sentence, arcs from its focus token as
wide as that token's weights, and the whole map of weights beside them whose focus row is the arcs.
The map is the engine's map of each chapter's head, checked against a softmax written out here; its
masked cells are exactly the causal mask's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_talk.frames.kit.cover import cover
from attention_talk.frames.step_by_step.inputs import build_story

DECKS = ["attention-step-by-step", "attention-walkthrough", "real-heads", "deepseek-attention"]


def naive_causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row by row: e^(s − max) over the keys up to the row's own token, 0 after it."""
    n = scores.shape[0]
    out = np.zeros_like(scores, dtype=np.float64)
    for i in range(n):
        row = scores[i, : i + 1]
        e = np.exp(row - row.max())
        out[i, : i + 1] = e / e.sum()
    return out


def cover_widget(client, deck: str) -> dict:
    frames = client.get(f"/api/decks/{deck}/slides/title/frames").json()["frames"]
    (w,) = [w for w in frames[0]["widgets"] if w["type"] == "tokens"]
    return w


@pytest.mark.parametrize("deck", DECKS)
def test_the_cover_map_is_causal_its_rows_weights_and_its_focus_row_the_arcs(client, deck) -> None:
    d = cover_widget(client, deck)["data"]
    grid, n, focus = d["map"], len(d["tokens"]), d["focus"]
    assert n >= 5 and len(grid) == n and all(len(r) == n for r in grid)
    assert [[v is None for v in r] for r in grid] == [[j > i for j in range(n)] for i in range(n)]
    for r in grid:
        assert sum(v for v in r if v is not None) == pytest.approx(1.0, abs=5e-5 * n)
    assert d["links"] == pytest.approx([0.0 if v is None else v for v in grid[focus]], abs=5e-5)
    assert max(d["links"]) > 1.5 / (focus + 1)  # a head that reads something in particular, not a flat row


def test_chapter_ones_cover_is_the_story_heads_map(client) -> None:
    d = cover_widget(client, "attention-step-by-step")["data"]
    story = build_story(tuple(d["tokens"]), seed=7)
    att = story.attention(causal=True)
    expected = naive_causal_softmax(np.asarray(att.scaled, dtype=np.float64))
    got = np.array([[0.0 if v is None else v for v in r] for r in d["map"]])
    np.testing.assert_allclose(got, expected, atol=5e-5)  # the map is sent to 4 decimals (tints only)
    assert d["tokens"][d["focus"]] == "dog"


@given(n=st.integers(2, 12), seed=st.integers(0, 10_000), data=st.data())
def test_cover_sends_the_weights_with_the_masked_cells_as_null(n, seed, data) -> None:
    rng = np.random.default_rng(seed)
    w = np.tril(rng.random((n, n)) + 1e-3)
    w /= w.sum(axis=1, keepdims=True)
    focus = data.draw(st.integers(0, n - 1))
    body = cover([f"t{i}" for i in range(n)], focus, w)
    d = body.widgets[0].data
    for i in range(n):
        for j in range(n):
            assert (d.map[i][j] is None) == (j > i)
            if j <= i:
                assert d.map[i][j] == pytest.approx(w[i, j], abs=5e-5)
    assert d.links == pytest.approx([w[focus, j] if j <= focus else 0.0 for j in range(n)], abs=1e-9)


def test_cover_refuses_a_map_of_the_wrong_size_or_a_focus_outside_it() -> None:
    with pytest.raises(ValueError, match=r"weights are \(3, 3\), expected \(4, 4\)"):
        cover(["a", "b", "c", "d"], 0, np.eye(3))
    with pytest.raises(ValueError, match="focus 4 is outside the 4 tokens"):
        cover(["a", "b", "c", "d"], 4, np.eye(4))
