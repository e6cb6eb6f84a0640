"""engine/checks.py: each rule of the engine's inputs stated once, so every caller refuses one bad
input with the same message, word for word. One table per rule (scale, mask, heads), run through
every function that takes that input."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from attention_talk import engine
from attention_talk.engine import (
    KVCache,
    attend,
    decode,
    decode_step,
    decode_step_grouped,
    flash_attend,
    grouped_attend,
    grouped_maps,
    kv_head_of,
    multi_head,
)
from attention_talk.engine import gqa as gqa_module

N, D = 3, 4  # tokens, width: every caller below gets a valid (N, D) problem and one bad argument
RNG = np.random.default_rng(0)
X, Q, K, V = (RNG.normal(size=(N, D)) for _ in range(4))
STACK = RNG.normal(size=(2, N, D))  # two heads
W = np.eye(D)


def lab_chain(heads: int, **kw) -> object:
    """The lab's chain (``illustrative_chain`` takes plain arguments, as the engine does)."""
    from attention_talk.lab.chain import illustrative_chain

    return illustrative_chain(["a", "b", "c", "d"], d_model=8, heads=heads, d_k=2, causal=True, temperature=1.0,
                     seed=3, **kw).maps


def _decode_step(scale):
    return decode_step(Q[0], K[0], V[0], KVCache(D, D), scale=scale)


SCALE_CALLERS: dict[str, Callable] = {
    "attend": lambda scale: attend(Q, K, V, scale=scale),
    "multi_head": lambda scale: multi_head(X, W, W, W, W, heads=2, scale=scale),
    "grouped_attend": lambda scale: grouped_attend(STACK, STACK, STACK, scale=scale),
    "grouped_maps": lambda scale: grouped_maps(STACK, STACK, scale=scale),
    "flash_attend": lambda scale: flash_attend(Q, K, V, block_size=2, scale=scale),
    "decode": lambda scale: decode(Q, K, V, scale=scale),
    "decode_step": _decode_step,
    "decode_step_grouped": lambda scale: decode_step_grouped(STACK[:, 0], STACK[:1, 0], STACK[:1, 0],
                                                             [KVCache(D, D)], scale=scale),
}

SCALE_NOT = "scale must be a finite real number or None (1/√d_k), got "
BAD_SCALES = [
    (float("nan"), SCALE_NOT + "nan"),
    (float("inf"), SCALE_NOT + "inf"),
    (-float("inf"), SCALE_NOT + "-inf"),
    ("0.5", SCALE_NOT + "'0.5'"),
    (True, SCALE_NOT + "True"),
    (np.bool_(False), SCALE_NOT + repr(np.bool_(False))),
    (1 + 0j, SCALE_NOT + "(1+0j)"),
    ([0.5], SCALE_NOT + "[0.5]"),
    (np.array([0.5]), SCALE_NOT + "array([0.5])"),
]


@pytest.mark.parametrize("caller", SCALE_CALLERS)
@pytest.mark.parametrize(("scale", "message"), BAD_SCALES, ids=[m.rpartition("got ")[2] for _, m in BAD_SCALES])
def test_every_caller_refuses_a_bad_scale_with_one_message(caller: str, scale, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        SCALE_CALLERS[caller](scale)


@pytest.mark.parametrize("caller", SCALE_CALLERS)
@pytest.mark.parametrize("scale", [None, 0, 0.25, -1.5, np.float32(2.0), np.int64(3)])
def test_every_caller_takes_a_real_scale_and_keeps_it(caller: str, scale) -> None:
    first = first_head(SCALE_CALLERS[caller](scale))
    d_k = getattr(first, "q", Q).shape[-1]
    expected = 1 / np.sqrt(d_k) if scale is None else float(scale)
    assert first.scale == expected and type(first.scale) is float


def first_head(result):
    """The first (or only) head's intermediates, whichever function made them."""
    if isinstance(result, engine.MultiHead):
        return result.heads[0]
    if isinstance(result, engine.Decode):
        return result.steps[0].attention
    if isinstance(result, engine.DecodeStep):
        return result.attention
    return result


MASK_CALLERS: dict[str, Callable] = {
    "attend": lambda mask: attend(Q, K, V, mask=mask),
    "attend causal": lambda mask: attend(Q, K, V, mask=mask, causal=True),
    "multi_head": lambda mask: multi_head(X, W, W, W, W, heads=2, mask=mask),
    "grouped_attend": lambda mask: grouped_attend(STACK, STACK, STACK, mask=mask),
    "grouped_maps": lambda mask: grouped_maps(STACK, STACK, mask=mask, causal=True),
}

with_nan, with_plus_inf = np.zeros((N, N)), np.zeros((N, N))
with_nan[1, 2], with_plus_inf[0, 0] = np.nan, np.inf
BAD_MASKS = [
    ("too few rows", np.zeros((N - 1, N)), "mask must have shape (n_q, n_k) = (3, 3), got (2, 3)"),
    ("transposed", np.zeros((N, N + 1)).T, "mask must have shape (n_q, n_k) = (3, 3), got (4, 3)"),
    ("one row", np.zeros(N), "mask must have shape (n_q, n_k) = (3, 3), got (3,)"),
    ("per head", np.zeros((2, N, N)), "mask must have shape (n_q, n_k) = (3, 3), got (2, 3, 3)"),
    ("a number", 0.0, "mask must have shape (n_q, n_k) = (3, 3), got ()"),
    ("NaN", with_nan, "mask must contain only finite values or -inf"),
    ("+inf", with_plus_inf, "mask must contain only finite values or -inf"),
    ("booleans", np.tril(np.ones((N, N), dtype=bool)),
     "mask must be additive (0 keeps, -inf blocks), got booleans: use np.where(keep, 0.0, -np.inf)"),
    ("complex", np.zeros((N, N), dtype=complex), "mask must hold real numbers, got dtype complex128"),
    ("text", [["0"] * N] * N, "mask must hold real numbers, got dtype <U1"),
    ("None", [[0.0, None, 0.0]] * N, "mask must hold real numbers, got dtype object"),
    ("ragged", [[0.0] * N, [0.0] * (N - 1), [0.0] * N], "mask must be an array of real numbers: "),
]


@pytest.mark.parametrize("caller", MASK_CALLERS)
@pytest.mark.parametrize(("mask", "message"), [m[1:] for m in BAD_MASKS], ids=[m[0] for m in BAD_MASKS])
def test_every_caller_refuses_a_bad_mask_with_one_message(caller: str, mask, message: str) -> None:
    anchored = f"^{re.escape(message)}" + ("" if message.endswith(": ") else "$")
    with pytest.raises(ValueError, match=anchored):
        MASK_CALLERS[caller](mask)


@pytest.mark.parametrize("caller", MASK_CALLERS)
def test_every_caller_adds_a_real_mask_to_the_causal_one(caller: str) -> None:
    bias = np.array([[0, -np.inf, 1], [2, 0, -np.inf], [0, 0, 0]])  # integers and -inf, as float64
    first = first_head(MASK_CALLERS[caller](bias.astype(np.float32) if caller == "attend" else bias))
    causal = caller in ("attend causal", "grouped_maps")
    expected = bias + (np.triu(np.full((N, N), -np.inf), 1) if causal else 0)
    np.testing.assert_array_equal(first.mask, expected)
    assert first.mask.dtype == np.float64


def _stacks(heads: int, kv_heads: int) -> tuple[np.ndarray, np.ndarray]:
    return np.ones((heads, N, D)), np.ones((kv_heads, N, D))


HEADS_CALLERS: dict[str, Callable] = {
    "multi_head": lambda h, g: multi_head(X, np.eye(D, 12), np.eye(D, 12), np.eye(D, 12), np.eye(12, D),
                                          heads=h, kv_heads=g),
    "kv_head_of": lambda h, g: kv_head_of(0, h, g),
    # heads from the shapes of the stacks: only whole numbers of heads can be written that way
    "grouped_attend": lambda h, g: grouped_attend(*_stacks(h, g), _stacks(h, g)[1]),
    "grouped_maps": lambda h, g: grouped_maps(*_stacks(h, g)),
    "decode_step_grouped": lambda h, g: decode_step_grouped(np.ones((h, D)), np.ones((g, D)), np.ones((g, D)),
                                                            [KVCache(D, D) for _ in range(g)]),
    "lab chain": lambda h, g: lab_chain(h),  # one key/value head per head: only heads itself can be wrong
}
SHAPED = {"grouped_attend", "grouped_maps", "decode_step_grouped"}

BAD_HEADS = [
    (0, 1, "heads must be a positive integer, got 0"),
    (-2, 1, "heads must be a positive integer, got -2"),
    (2.0, 1, "heads must be a positive integer, got 2.0"),
    (True, 1, "heads must be a positive integer, got True"),
    ("2", 1, "heads must be a positive integer, got '2'"),
    (4, 0, "kv_heads must be a positive integer, got 0"),
    (4, 1.0, "kv_heads must be a positive integer, got 1.0"),
    (4, 3, "kv_heads = 3 must divide heads = 4"),
    (6, 4, "kv_heads = 4 must divide heads = 6"),
    (2, 4, "kv_heads = 4 must divide heads = 2"),
]


def _can_be_given(caller: str, heads, kv_heads) -> bool:
    """Whether ``caller`` can be handed these heads at all (a stack has a whole number of heads)."""
    if caller == "lab chain":
        return type(kv_heads) is int and kv_heads == 1
    if caller in SHAPED:
        return all(type(x) is int and x >= 0 for x in (heads, kv_heads))
    return True


@pytest.mark.parametrize(("caller", "heads", "kv_heads", "message"), [
    pytest.param(caller, h, g, m, id=f"{caller}: {m}")
    for caller in HEADS_CALLERS for h, g, m in BAD_HEADS if _can_be_given(caller, h, g)
])
def test_every_caller_refuses_bad_heads_with_one_message(caller: str, heads, kv_heads, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        HEADS_CALLERS[caller](heads, kv_heads)


@pytest.mark.parametrize(("w_q", "w_k", "w_v", "message"), [
    (np.eye(D, 5), np.eye(D, 6), np.eye(D, 6), "W_Q has 5 columns, which 3 heads do not divide"),
    (np.eye(D, 6), np.eye(D, 5), np.eye(D, 6), "W_K has 5 columns, which 3 heads do not divide"),
    (np.eye(D, 6), np.eye(D, 6), np.eye(D, 4), "W_V has 4 columns, which 3 heads do not divide"),
])
def test_multi_head_refuses_heads_that_do_not_divide_a_projection(w_q, w_k, w_v, message) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        multi_head(X, w_q, w_k, w_v, np.eye(6, D), heads=3)


def test_the_lab_chain_reports_the_engines_default_scale() -> None:
    from attention_talk.lab.chain import illustrative_chain
    from attention_talk.lab.wire import chain_json

    chain = illustrative_chain(["a", "b"], d_model=8, heads=2, d_k=3, causal=False, temperature=1.0, seed=1)
    body = chain_json(chain, d_model=8, heads=2, d_k=3, include=["weights"])
    assert body["scale"] == chain.maps.scale == 1 / np.sqrt(3)


ENGINE = Path(engine.__file__).resolve().parent
MESSAGES = ["must be a positive integer", "must divide heads", "scale must be", "mask must",
            "must have the same width d_k", "same number of rows n_k", "contains NaN or infinite values",
            "heads do not divide"]


@pytest.mark.parametrize("phrase", MESSAGES)
def test_each_rule_is_written_once_in_the_engine(phrase: str) -> None:
    """The words of each refusal appear in engine/checks.py alone: a second copy elsewhere is a
    second statement of the rule, free to drift from the first."""
    where = sorted(p.name for p in ENGINE.glob("*.py") if phrase in p.read_text(encoding="utf-8"))
    assert where == ["checks.py"], f"{phrase!r} is written in {where}"


def test_no_second_name_for_a_rule_and_no_unused_helper() -> None:
    assert not hasattr(gqa_module, "check_groups")  # check_heads under another name, merged into it
    assert "split_heads" not in engine.__all__ and not hasattr(engine.attention, "split_heads")
