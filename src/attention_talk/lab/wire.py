"""The illustrative chain on the wire: the body of ``POST /api/attention``, with only the tensors a
request names in ``include`` (``sizes.TENSORS``; by default ``sizes.DEFAULT_INCLUDE``, the weights
alone), each number rounded to ``digits`` and written as a decimal or, as the lab asks, as an
integer in units of 10^-digits (``sizes.NUMBER_FORMS``); −∞ (a masked score) is null either way.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import orjson

from attention_talk.engine.checks import check_scale
from attention_talk.lab.chain import IllustrativeChain, chain_costs
from attention_talk.lab.sizes import PER_HEAD, TENSORS

NULL = np.iinfo(np.int64).min  # stands for −∞ (a masked score) among integers; written as null
SAFE = 2.0**53  # integers up to this size are exact in every JSON reader (a double's mantissa)


def decimal(a: np.ndarray, digits: int) -> np.ndarray:
    """``a`` rounded to ``digits`` decimals, −∞ as NaN (orjson writes NaN as null)."""
    return np.round(np.where(np.isneginf(a), np.nan, a), digits)


def scaled(a: np.ndarray, digits: int) -> np.ndarray:
    """``a`` in units of 10^-digits, rounded to integers (0.1234 → 1234 with 4 digits): about half
    the bytes of the decimals, and quicker to write. −∞ becomes ``NULL`` (null once written). Should
    any number reach 2^53 (never at the sizes allowed but with 12 digits or more), the integers stay
    floats, which JSON writes as 2000000000000000.0 or 1e+18: the same numbers, still exact to a double."""
    with np.errstate(invalid="ignore", over="ignore"):
        units = np.rint(a * 10.0**digits)
    minus_inf = np.isneginf(a)
    finite = units[~minus_inf]
    if finite.size and not np.abs(finite).max() < SAFE:
        return np.where(minus_inf, np.nan, units)
    ints = np.where(minus_inf, 0.0, units).astype(np.int64)
    ints[minus_inf] = NULL
    return ints


def json_value(a: np.ndarray) -> np.ndarray | orjson.Fragment:
    """A (C-contiguous) array as orjson writes it: integers standing for −∞ become null."""
    if a.dtype == np.int64 and (a == NULL).any():
        return orjson.Fragment(orjson.dumps(a, option=orjson.OPT_SERIALIZE_NUMPY).replace(
            str(NULL).encode(), b"null"))
    return a


def chain_json(chain: IllustrativeChain, *, d_model: int, heads: int, d_k: int, digits: int = 15,
               include: Iterable[str] = TENSORS, numbers: str = "decimal") -> dict:
    """The response body: only the tensors named in ``include``, each rounded to ``digits``, as
    decimals or as integers in units of 10^-digits (``numbers``, one of NUMBER_FORMS). Only the
    tensors asked for are computed (see :class:`IllustrativeChain`)."""
    wanted = set(include)
    form = scaled if numbers == "scaled" else decimal
    stacks = {name: form(chain.tensor(name), digits) for name in TENSORS if name in wanted}
    heads_json = [
        {"head": i, **{name: json_value(stacks[name][i]) for name in PER_HEAD if name in wanted}}
        for i in range(heads)
    ]
    out = {
        "tokens": chain.tokens, "d_model": d_model, "heads": heads, "d_k": d_k, "digits": digits,
        "numbers": numbers, "include": [t for t in TENSORS if t in wanted], "scale": check_scale(None, d_k),
        "per_head": heads_json,
        "costs": chain_costs(len(chain.tokens), d_model=d_model, heads=heads, d_k=d_k),
    }
    if "concat" in wanted:
        out["concat"] = json_value(stacks["concat"])
    if "final" in wanted:
        out["output"] = json_value(stacks["final"])
    return out
