"""The designed story must hold: computed by the engine, "dog" attends most to "old"."""

from __future__ import annotations

import numpy as np
import pytest

from attention_talk.engine import attend
from attention_talk.frames.step_by_step.inputs import build_story

TOKENS = ["the", "old", "dog", "sleeps", "by", "the", "fire"]


@pytest.fixture(scope="module")
def story():
    return build_story(TOKENS, seed=7)


def test_shapes_are_deepseek_sizes(story) -> None:
    assert story.x.shape == (7, 7168)
    assert story.w_q.shape == story.w_k.shape == story.w_v.shape == (7168, 128)
    assert story.w_o.shape == (128, 7168)
    assert story.head_output.shape == story.x.shape


def test_dog_attends_most_to_old_some_to_itself_none_later(story) -> None:
    w = story.attention(causal=True).weights
    dog = w[TOKENS.index("dog")]
    assert np.argmax(dog) == TOKENS.index("old")
    assert 0.5 < dog[1] < 0.8 and 0.15 < dog[2] < 0.4 and dog[0] < 0.15
    assert np.all(dog[3:] == 0.0)
    assert dog.sum() == pytest.approx(1.0, abs=1e-12)


def test_story_is_computed_not_stored(story) -> None:
    # The map is exactly the engine's Q Kᵀ of the designed inputs.
    a = attend(story.x @ story.w_q, story.x @ story.w_k, story.x @ story.w_v, causal=True)
    np.testing.assert_array_equal(a.scores, story.attention().scores)


def test_deterministic_and_seed_dependent(story) -> None:
    again = build_story(TOKENS, seed=7)
    np.testing.assert_array_equal(again.q, story.q)
    other = build_story(TOKENS, seed=8)
    assert not np.allclose(other.q, story.q)


def test_embed_words_matches_the_full_story(story) -> None:
    from attention_talk.frames.step_by_step.inputs import embed_words

    np.testing.assert_array_equal(embed_words(TOKENS, seed=7), story.x)
