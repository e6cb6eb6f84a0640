"""Prefix reuse: a text that starts with the tokens of a recent one runs only its new tokens
(``forward.extend`` from the kept trace), and every number is the full pass's. Oracle: ``forward``
over the whole text, nothing reused (and for the next tokens' partial sort, a full stable argsort).
Needs the real model (``real_model`` in conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_talk.model import runner
from attention_talk.model.forward import extend, forward
from attention_talk.model.threads import one_blas_thread

FIELDS = ("q", "k", "v", "scores", "scaled", "weights", "output")
BASE = "the old dog sat by the warm fire while the cat watched from a quiet"


def assert_same_trace(got, want, atol: float = 1e-9) -> None:
    np.testing.assert_allclose(got.residual, want.residual, rtol=0, atol=atol)
    np.testing.assert_allclose(got.hidden, want.hidden, rtol=0, atol=atol)
    assert len(got.attention) == len(want.attention)
    for layer, (a, b) in enumerate(zip(got.attention, want.attention, strict=True)):
        for name in FIELDS:
            x, y = getattr(a, name), getattr(b, name)
            assert x.shape == y.shape, (layer, name, x.shape, y.shape)
            np.testing.assert_allclose(x, y, rtol=0, atol=atol, err_msg=f"layer {layer}, {name}")
        assert np.array_equal(a.mask, b.mask) and a.scale == b.scale
        np.testing.assert_array_equal(np.isneginf(a.masked), np.isneginf(b.masked))
        assert np.all(a.weights[np.isneginf(a.masked)] == 0.0)  # exactly 0 above the diagonal


@st.composite
def prefix_and_text(draw, vocab: int):
    """An earlier text's ids, a later text's ids sharing ``reuse`` ≥ 1 leading tokens with it (a
    longer text, a shorter one, the same one, or one that differs after the shared part)."""
    token = st.integers(0, vocab - 1)
    earlier = draw(st.lists(token, min_size=1, max_size=9))
    reuse = draw(st.integers(1, len(earlier)))
    tail = draw(st.lists(token, max_size=6))
    if tail and reuse < len(earlier) and tail[0] == earlier[reuse]:
        tail[0] = (tail[0] + 1) % vocab  # the texts part after exactly ``reuse`` tokens
    return earlier, earlier[:reuse] + tail, reuse


@pytest.fixture(scope="module")
def vocab(real_model) -> int:
    return real_model.config.vocab


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_extending_a_prefix_gives_the_full_pass(real_model, vocab, data) -> None:
    earlier, ids, reuse = data.draw(prefix_and_text(vocab))
    w, cfg = real_model.weights, real_model.config
    with one_blas_thread():  # as the model runs (many threads on busy cores are far slower)
        got, want = extend(w, cfg, forward(w, cfg, earlier), ids, reuse), forward(w, cfg, ids)
    assert_same_trace(got, want)


def test_extend_refuses_a_prefix_it_does_not_have(real_model) -> None:
    w, cfg = real_model.weights, real_model.config
    with one_blas_thread():
        earlier = forward(w, cfg, [1, 2, 3])
    for reuse in (0, 4):
        with pytest.raises(ValueError, match="reuse must be between 1"):
            extend(w, cfg, earlier, [1, 2, 3, 4, 5], reuse)


def test_the_model_reuses_the_longest_kept_prefix(real_model, monkeypatch) -> None:
    """Typing at the end: each text runs only its new tokens (the full pass would fail here), and the
    run equals a cold run of the same text: every head, residual, logits, next tokens."""
    model = real_model
    texts = [f"{BASE} gard", f"{BASE} garden", f"{BASE} garden.", f"{BASE} garde", f"{BASE} window"]
    model.clear_cache()
    model.run(texts[0], layers=[0], heads=[0])
    warm = []
    with monkeypatch.context() as patch:
        patch.setattr(runner, "forward", lambda *a: pytest.fail("ran the whole text again"))
        for text in texts[1:]:
            warm.append(model.run(text, want=("weights", "q", "k", "v", "scores")))
    for text, run in zip(texts[1:], warm, strict=True):
        model.clear_cache()
        cold = model.run(text, want=("weights", "q", "k", "v", "scores"))
        assert run.ids == cold.ids and run.tokens == cold.tokens
        assert [(t.id, t.token) for t in run.next_tokens] == [(t.id, t.token) for t in cold.next_tokens]
        np.testing.assert_allclose([t.p for t in run.next_tokens], [t.p for t in cold.next_tokens], rtol=0, atol=1e-12)
        np.testing.assert_allclose(run.logits, cold.logits, rtol=0, atol=1e-9)
        np.testing.assert_allclose(run.residual, cold.residual, rtol=0, atol=1e-9)
        for key, m in cold.maps.items():
            for name in ("weights", "q", "k", "v", "scores"):
                np.testing.assert_allclose(getattr(run.maps[key], name), getattr(m, name), rtol=0, atol=1e-9)


def test_kept_traces_are_bounded(real_model) -> None:
    model = real_model
    model.clear_cache()
    for i in range(runner.TRACE_ENTRIES + 3):
        model.trace([i + 1, 7, 7])
    assert len(model._traces) == runner.TRACE_ENTRIES
    assert list(model._traces)[-1] == (runner.TRACE_ENTRIES + 3, 7, 7)
    model.clear_cache()
    assert not model._traces


def test_the_lab_answer_is_the_same_warm_or_cold(client, real_model) -> None:
    """POST /api/model/lab for a text typed after another (extended from its trace) returns exactly
    what it returns when nothing was kept (the next tokens' probabilities, sent unrounded, to 1e-12)."""
    asks = [{"text": f"{BASE} porch", "layer": 3, "head": 5}, {"text": f"{BASE} porches", "layer": 3, "head": 5},
            {"text": f"{BASE} por", "layer": 29, "head": 0}]
    real_model.clear_cache()
    warm = [client.post("/api/model/lab", json=ask) for ask in asks]
    for ask, answer in zip(asks, warm, strict=True):
        real_model.clear_cache()
        cold = client.post("/api/model/lab", json=ask)
        assert answer.status_code == cold.status_code == 200, cold.text
        a, b = answer.json(), cold.json()
        p_a, p_b = ([t.pop("p") for t in body["next_tokens"]] for body in (a, b))
        assert a == b
        np.testing.assert_allclose(p_a, p_b, rtol=0, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(p=st.lists(st.integers(0, 5).map(float), min_size=1, max_size=40), top=st.integers(-3, 45))
def test_the_top_tokens_are_those_of_a_full_stable_sort(p, top) -> None:
    """Many ties: the partial selection keeps the full sort's order (largest first, ties by index)."""
    p = np.array(p)
    assert runner.top_indices(p, top).tolist() == np.argsort(-p, kind="stable")[:top].tolist()
