"""One number formatter on both sides: Python's ``attention_talk.formatting`` and the player's
``static/js/lib/format.js`` must write every number alike (real minus, no −0, −∞ for a masked score,
ties away from zero, thousands separators). The JS side runs in node, one process per test."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_talk.formatting import count, number, shape, vector

HARNESS = Path(__file__).with_name("format_harness.mjs")
NODE = shutil.which("node")


def encode(x):
    """A number as the harness reads it: None stays null, a float keeps −0, ±∞ and NaN."""
    if x is None:
        return None
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, float) and math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(x)


def run_js(calls: list[tuple[str, list]]) -> list[str]:
    """Run ``[(name, args), ...]`` through static/js/lib/format.js in one node process."""
    assert NODE, "node is needed to check the player's formatter (apt-get install nodejs)"
    payload = [[name, [[encode(v) for v in a] if isinstance(a, list) else encode(a) for a in args]]
               for name, args in calls]
    done = subprocess.run([NODE, str(HARNESS)], input=json.dumps(payload), capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# (value, digits, what Python and JS must both write)
NUMBERS = [
    (0.0, 2, "0.00"), (-0.0, 2, "0.00"), (-0.004, 2, "0.00"), (-0.005, 2, "−0.01"),
    (0.125, 2, "0.13"), (-0.125, 2, "−0.13"), (2.5, 0, "3"), (-2.5, 0, "−3"), (0.5, 0, "1"),
    (1.005, 2, "1.00"),  # 1.005 is 1.00499999999999989… in binary: rounds down
    (1e-9, 2, "0.00"), (-1e-9, 4, "0.0000"), (1e-9, 9, "0.000000001"),
    (30.5, 1, "30.5"), (-1.5, 2, "−1.50"), (1234567.891, 2, "1234567.89"), (1e20, 0, "100000000000000000000"),
    (None, 2, "−∞"), (float("-inf"), 2, "−∞"), (float("inf"), 2, "∞"), (float("nan"), 2, "NaN"),
    (7, 0, "7"), (-3, 1, "−3.0"),
]
COUNTS = [
    (0, "0"), (-0.0, "0"), (-0.0004, "0"), (7, "7"), (1000, "1,000"), (-1234567, "−1,234,567"),
    (1207959552, "1,207,959,552"), (939524096 + 65536, "939,589,632"), (2.5, "2.5"), (-2.5, "−2.5"),
    (0.125, "0.125"), (0.1235, "0.123"), (1234.5678, "1,234.568"), (1e-9, "0"), (2.0, "2"),
    (1207959552.0, "1,207,959,552"), (1e15, "1,000,000,000,000,000"),
]


@pytest.fixture(scope="module")
def js_table() -> dict[str, list[str]]:
    calls = [("number", [x, d]) for x, d, _ in NUMBERS] + [("count", [x]) for x, _ in COUNTS]
    calls += [("vector", [[0.1, -0.2, -0.0001], 2]), ("shape", [[7, 7168]])]
    out = run_js(calls)
    return {"number": out[:len(NUMBERS)], "count": out[len(NUMBERS):-2], "rest": out[-2:]}


@pytest.mark.parametrize("i", range(len(NUMBERS)), ids=[f"number({x!r},{d})" for x, d, _ in NUMBERS])
def test_number_table(js_table, i) -> None:
    x, digits, expected = NUMBERS[i]
    assert number(x, digits) == expected
    assert js_table["number"][i] == expected


@pytest.mark.parametrize("i", range(len(COUNTS)), ids=[f"count({x!r})" for x, _ in COUNTS])
def test_count_table(js_table, i) -> None:
    x, expected = COUNTS[i]
    assert count(x) == expected
    assert js_table["count"][i] == expected


def test_vector_and_shape(js_table) -> None:
    assert vector([0.1, -0.2, -0.0001], 2) == js_table["rest"][0] == "[0.10, −0.20, 0.00]"
    assert shape(7, 7168) == js_table["rest"][1] == "7 × 7,168"


def collect(strategy, n: int = 400) -> list:
    """Draw ``n`` examples from a hypothesis strategy (edge cases included), to check in one batch."""
    seen: list = []

    @settings(max_examples=n, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(x) -> None:
        seen.append(x)

    draw()
    return seen


# Python's Decimal context holds 28 digits: number() and count() are exact up to about 1e22.
FLOATS = st.floats(min_value=-1e20, max_value=1e20, allow_nan=False)


def test_random_numbers_agree() -> None:
    samples = collect(st.tuples(FLOATS | st.sampled_from([0.5, -0.5, 0.125, -0.125, 2.5, -0.0]),
                                st.integers(0, 6)))
    js = run_js([("number", [x, d]) for x, d in samples])
    bad = [(x, d, number(x, d), got) for (x, d), got in zip(samples, js, strict=True) if number(x, d) != got]
    assert bad == [], bad[:10]


def test_random_counts_agree() -> None:
    samples = collect(FLOATS | st.integers(-(2**53), 2**53))
    js = run_js([("count", [x]) for x in samples])
    bad = [(x, count(x), got) for x, got in zip(samples, js, strict=True) if count(x) != got]
    assert bad == [], bad[:10]


def test_python_handles_any_double() -> None:
    """No overflow for huge values (Decimal quantize runs with enough precision)."""
    assert number(-1e25, 0) == "−10000000000000000905969664"
    assert count(1e300).startswith("1,000,000,000,000,000,052")
    assert number(1.7976931348623157e308, 0).startswith("17976931348623157")


def test_scientific_uses_a_real_minus_and_superscripts() -> None:
    from attention_talk.formatting import scientific

    assert scientific(1.6e-15) == "1.6 × 10⁻¹⁵"
    assert scientific(-2.5e20) == "−2.5 × 10²⁰"
    assert scientific(0.0) == "0"
