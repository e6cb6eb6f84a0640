"""The next tokens at an output softmax temperature (lab/model_view.py ``output_softmax``, and
POST /api/model/lab's ``next_temperature``): softmax(logits / T) over the whole vocabulary, checked
against a softmax written out here with plain loops and math.exp; hypothesis properties (the order
never changes, T < 1 sharpens the top token, T > 1 flattens it); bad temperatures → 422 naming the field."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_talk.lab.model_view import output_softmax

LAB = "/api/model/lab"
TEXT = "The capital of France is"


def naive_softmax(logits: list[float], t: float) -> list[float]:
    """softmax(x / t), the maximum subtracted first, one term at a time."""
    scaled = [x / t for x in logits]
    top = max(scaled)
    exps = [math.exp(x - top) for x in scaled]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def naive_top(p: list[float], top: int) -> list[int]:
    """Indices by probability, largest first, ties by index (a plain sort of pairs)."""
    return [i for _, i in sorted(((-q, i) for i, q in enumerate(p)))][:top]


logits_lists = st.lists(st.floats(-30, 30, allow_nan=False), min_size=2, max_size=60)
temperatures = st.floats(0.05, 10, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(logits_lists, temperatures, st.integers(1, 12))
def test_output_softmax_is_a_softmax_of_the_logits_over_t(logits, t, top) -> None:
    ids, p = output_softmax(np.array(logits), t, top)
    want = naive_softmax(logits, t)
    assert list(ids) == naive_top(want, top)
    assert np.allclose(p, [want[i] for i in ids], rtol=1e-9, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(logits_lists, temperatures, temperatures)
def test_the_order_never_changes_and_a_lower_t_sharpens(logits, t1, t2) -> None:
    x = np.array(logits)
    lo, hi = sorted((t1, t2))
    n = len(logits)
    ids_lo, p_lo = output_softmax(x, lo, n)
    ids_hi, p_hi = output_softmax(x, hi, n)
    # the same ranking (ties aside: equal logits stay equal at any T)
    assert [logits[i] for i in ids_lo] == [logits[i] for i in ids_hi]
    assert p_lo[0] >= p_hi[0] - 1e-12  # the most likely token only gains as T falls
    assert math.isclose(p_lo.sum(), 1.0, rel_tol=1e-9) and math.isclose(p_hi.sum(), 1.0, rel_tol=1e-9)


def test_a_known_case() -> None:
    ids, p = output_softmax(np.array([2.0, 0.0, 1.0]), 0.5, 3)  # softmax([4, 0, 2])
    e = [math.exp(4), math.exp(0), math.exp(2)]
    assert list(ids) == [0, 2, 1]
    assert np.allclose(p, [e[0] / sum(e), e[2] / sum(e), e[1] / sum(e)])


def test_the_lab_answers_at_the_temperature_asked(client, real_model) -> None:
    run = real_model.run(TEXT)
    want = naive_softmax([float(v) for v in run.logits], 2.5)
    body = client.post(LAB, json={"text": TEXT, "layer": 0, "head": 0, "grid": 0, "next_temperature": 2.5}).json()
    assert body["next_temperature"] == 2.5
    assert [t["id"] for t in body["next_tokens"]] == naive_top(want, len(body["next_tokens"]))
    assert np.allclose([t["p"] for t in body["next_tokens"]], [want[t["id"]] for t in body["next_tokens"]])
    plain = client.post(LAB, json={"text": TEXT, "layer": 0, "head": 0, "grid": 0}).json()
    assert plain["next_temperature"] == 1.0
    assert body["next_tokens"][0]["p"] < plain["next_tokens"][0]["p"]  # a hotter softmax is flatter


@pytest.mark.parametrize("bad", [0, -1, 11, "hot", None])
def test_a_bad_temperature_is_refused_naming_the_field(client, bad) -> None:
    r = client.post(LAB, json={"text": TEXT, "next_temperature": bad})
    assert r.status_code == 422
    assert "next_temperature" in r.text
