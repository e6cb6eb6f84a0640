"""POST /api/attention's numbers: the default compact form (integers in units of 10^-digits) and the
decimal one, checked against a naive oracle (plain Python loops over the same inputs); only the
tensors asked for are computed; the lab's decoder (static/js/lab/api.js ``decodeNumbers``, in node)
gives back exactly the decimal answer."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attention_talk.lab import chain, wire
from attention_talk.lab.sizes import TENSORS

API_JS = Path(__file__).resolve().parents[1] / "static" / "js" / "lab" / "api.js"
PER_HEAD = ["q", "k", "v", "scores", "masked", "weights", "output"]


def naive_chain(tokens: list[str], d_model: int, heads: int, causal: bool, temperature: float,
                seed: int) -> dict:
    """Every tensor of the chain by plain loops over lists: the same inputs (the seeded embeddings,
    positions and projections), none of the engine's maths."""
    d_k = d_model // heads
    n = len(tokens)
    pe = chain.positions(n, d_model)
    x = [[float(chain.token_embedding(t, d_model, seed)[j] + pe[i][j]) for j in range(d_model)]
         for i, t in enumerate(tokens)]
    w_q, w_k, w_v, w_o = (w.tolist() for w in chain.projections(d_model, heads, d_k, seed))

    def times(a: list[list[float]], w: list[list[float]], cols: range) -> list[list[float]]:
        return [[math.fsum(a[i][m] * w[m][c] for m in range(len(w))) for c in cols] for i in range(len(a))]

    out = {name: [] for name in PER_HEAD}
    for h in range(heads):
        cols = range(h * d_k, (h + 1) * d_k)
        q, k, v = times(x, w_q, cols), times(x, w_k, cols), times(x, w_v, cols)
        scores = [[math.fsum(q[i][c] * k[j][c] for c in range(d_k)) for j in range(n)] for i in range(n)]
        masked = [[-math.inf if causal and j > i else s / math.sqrt(d_k) for j, s in enumerate(row)]
                  for i, row in enumerate(scores)]
        weights = []
        for row in masked:
            top = max(row)
            e = [math.exp((m - top) / temperature) for m in row]
            weights.append([x / math.fsum(e) for x in e])
        output = [[math.fsum(weights[i][j] * v[j][c] for j in range(n)) for c in range(d_k)] for i in range(n)]
        for name, value in zip(PER_HEAD, (q, k, v, scores, masked, weights, output), strict=True):
            out[name].append(value)
    concat = [[x for h in range(heads) for x in out["output"][h][i]] for i in range(n)]
    out["concat"] = concat
    out["final"] = times(concat, w_o, range(d_model))
    return out


def as_tensor(body: dict, name: str) -> np.ndarray:
    """A response's tensor (every head stacked, or the layer's), None as NaN."""
    if name in PER_HEAD:
        return np.array([h[name] for h in body["per_head"]], dtype=float)
    return np.array(body["output" if name == "final" else name], dtype=float)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(st.sampled_from(["the", "old", "dog", "sleeps", "a", "-9223372036854775808"]),
                       min_size=1, max_size=7),
       shape=st.sampled_from([(8, 2), (12, 3), (16, 4), (6, 1)]), causal=st.booleans(),
       temperature=st.sampled_from([0.5, 1.0, 2.5]), seed=st.integers(0, 2**32 - 1),
       digits=st.integers(1, 8), include=st.sets(st.sampled_from(TENSORS), min_size=1))
def test_scaled_numbers_are_the_oracle_in_units_of_ten_to_minus_digits(
        client, tokens, shape, causal, temperature, seed, digits, include) -> None:
    d_model, heads = shape
    body = {"tokens": tokens, "d_model": d_model, "heads": heads, "causal": causal,
            "temperature": temperature, "seed": seed, "digits": digits, "include": sorted(include),
            "numbers": "scaled"}
    scaled = client.post("/api/attention", json=body)
    assert scaled.status_code == 200, scaled.text
    scaled = scaled.json()
    assert scaled["numbers"] == "scaled" and scaled["tokens"] == tokens  # a token like the null stand-in stays
    decimal = client.post("/api/attention", json={**body, "numbers": "decimal"}).json()
    assert decimal["numbers"] == "decimal"
    oracle = naive_chain(tokens, d_model, heads, causal, temperature, seed)
    unit = 10.0**-digits
    for name in scaled["include"]:
        ints, decimals = as_tensor(scaled, name), as_tensor(decimal, name)
        expected = np.array(oracle[name], dtype=float)
        minus_inf = np.isneginf(expected)
        assert np.array_equal(np.isnan(ints), minus_inf) and np.array_equal(np.isnan(decimals), minus_inf)
        assert np.all(ints[~minus_inf] == np.round(ints[~minus_inf]))  # integers
        # Each integer is the oracle's value in units of 10^-digits, rounded (half a unit, and a hair
        # for the last bits of the sums); the decimals are the same numbers.
        assert np.all(np.abs(ints * unit - expected)[~minus_inf] <= 0.5 * unit + 1e-9)
        assert np.all(np.abs(decimals - ints * unit)[~minus_inf] <= 1e-12 * np.maximum(1, np.abs(decimals))[~minus_inf])


def test_masked_scores_are_null_among_the_integers(client) -> None:
    r = client.post("/api/attention", json={"tokens": ["a", "b", "c"], "d_model": 8, "heads": 2,
                                            "include": ["masked", "weights"], "numbers": "scaled"})
    head = r.json()["per_head"][0]
    assert [row[1:] for row in head["masked"]] == [[None, None], [head["masked"][1][1], None],
                                                   head["masked"][2][1:]]
    assert all(type(x) is int for row in head["masked"] for x in row if x is not None)
    assert head["weights"][0] == [10_000, 0, 0]
    assert b"-9223372036854775808" not in r.content


def test_numbers_too_large_for_exact_integers_stay_floats() -> None:
    """At 12 digits or more a number could pass 2^53, beyond which JSON readers (JavaScript's) round
    integers: then the tensor is written as floats of the same integral values (1e+18), exact to a
    double, and −∞ as null."""
    a = np.array([[1_000.0, -np.inf], [0.5, 2.0]])
    big = wire.scaled(a, 15)
    assert big.dtype == np.float64
    written = orjson.dumps(wire.json_value(big), option=orjson.OPT_SERIALIZE_NUMPY)
    assert written == b"[[1e+18,null],[500000000000000.0,2000000000000000.0]]"
    assert orjson.loads(written) == [[10**18, None], [5 * 10**14, 2 * 10**15]]
    small = wire.scaled(a, 4)
    assert small.dtype == np.int64
    assert orjson.loads(orjson.dumps({"m": wire.json_value(small)}, option=orjson.OPT_SERIALIZE_NUMPY)) == \
        {"m": [[10_000_000, None], [5_000, 20_000]]}


def test_only_the_tensors_asked_for_are_computed() -> None:
    chain._projections.pop((16, 4, 4, 1), None)  # drawn afresh, whatever ran before
    layer = chain.illustrative_chain(["a", "b", "c", "d"], d_model=16, heads=4, d_k=4, causal=True,
                                     temperature=1.0, seed=1)
    wire.chain_json(layer, d_model=16, heads=4, d_k=4, digits=4, include=["weights"], numbers="scaled")
    assert {"q", "k", "maps"} <= set(vars(layer)) and not {"v", "output", "concat", "final"} & set(vars(layer))
    assert not layer.weights.drawn_all  # the maps alone: W_V and W_O not even drawn
    head = layer.head(2)  # every intermediate of one head, as engine.attend gives it
    naive = naive_chain(["a", "b", "c", "d"], 16, 4, True, 1.0, 1)
    assert head.output == pytest.approx(np.array(naive["output"][2]), abs=1e-12)
    assert layer.final == pytest.approx(np.array(naive["final"]), abs=1e-12)


def eager_projections(d_model: int, heads: int, d_k: int, seed: int) -> list[np.ndarray]:
    """The documented draw, all four at once: W_Q, W_K, W_V then W_O from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    hd = heads * d_k
    return [*(rng.normal(0.0, 1.0 / math.sqrt(d_model), (d_model, hd)) for _ in range(3)),
            rng.normal(0.0, 1.0 / math.sqrt(hd), (hd, d_model))]


@settings(max_examples=30, deadline=None)
@given(shape=st.sampled_from([(8, 2, 4), (12, 3, 4), (16, 4, 2), (6, 1, 6), (64, 8, 8)]),
       seed=st.integers(0, 2**63 - 1), order=st.permutations(["w_q", "w_k", "w_v", "w_o"]))
def test_projections_drawn_lazily_are_the_eager_draw_in_any_order(shape, seed, order) -> None:
    """W_V and W_O are drawn when first asked for, from the generator's state after W_K: the very
    numbers of drawing all four in a row, whichever is asked for first; all read-only."""
    w = chain.Projections(*shape, seed)
    assert not w.drawn_all
    expected = dict(zip(["w_q", "w_k", "w_v", "w_o"], eager_projections(*shape, seed), strict=True))
    for name in order:
        got = getattr(w, name)
        assert np.array_equal(got, expected[name]) and not got.flags.writeable
    assert w.drawn_all
    assert all(np.array_equal(a, b) for a, b in zip(w, expected.values(), strict=True))
    assert w.nbytes == sum(a.nbytes for a in expected.values())  # what the weights cache counts


def test_two_threads_asking_for_w_v_at_once_share_one_draw() -> None:
    from concurrent.futures import ThreadPoolExecutor

    w = chain.Projections(512, 8, 64, 31337)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: (w.w_v, w.w_o), range(16)))
    assert all(v is got[0][0] and o is got[0][1] for v, o in got)
    assert np.array_equal(got[0][0], eager_projections(512, 8, 64, 31337)[2])


@pytest.mark.parametrize(("body", "field"), [
    ({"numbers": "binary"}, "numbers"),
    ({"numbers": 4}, "numbers"),
    ({"include": ["weights", "attention"]}, "include"),
])
def test_bad_numbers_or_include_is_a_422_naming_the_field(client, body, field) -> None:
    r = client.post("/api/attention", json={"tokens": ["a", "b"], **body})
    assert r.status_code == 422 and r.json()["message"].startswith(field), r.json()


DECODE = """
const { decodeNumbers } = await import(process.argv[1]);
const bodies = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(bodies.map(decodeNumbers)));
"""


def test_the_labs_decoder_gives_back_the_decimal_answer_exactly(client) -> None:
    node = shutil.which("node")
    assert node, "node is needed for the lab's JavaScript tests"
    body = {"text": "the old dog sleeps by the fire", "d_model": 16, "heads": 4, "temperature": 0.7,
            "seed": 11, "digits": 6, "include": ["scores", "masked", "weights", "final"], "numbers": "scaled"}
    scaled = client.post("/api/attention", json=body).json()
    decimal = client.post("/api/attention", json={**body, "numbers": "decimal"}).json()
    model_like = {"weights": [[1.0]], "numbers": None}  # any other body passes through as it is
    done = subprocess.run([node, "--input-type=module", "-e", DECODE, API_JS.as_uri(),
                           json.dumps([scaled, decimal, model_like])], capture_output=True, text=True,
                          timeout=60, check=True)
    decoded = json.loads(done.stdout)
    assert decoded == [decimal, decimal, model_like]


def test_settling_after_the_warm_freezes_the_objects_and_keeps_one_blas_thread(client) -> None:
    """What start-up's warm does once the designed decks are built (``startup.settle``): one
    collection, then ``gc.freeze`` (a full collection would otherwise walk every object of the app in
    the middle of a request), and one BLAS thread (the server's parallelism is its requests)."""
    import gc

    from threadpoolctl import threadpool_info

    from attention_talk.web.startup import settle

    settle()
    assert gc.get_freeze_count() > 10_000
    assert {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"} == {1}


# In a fresh interpreter: no background thread of another test's app may touch BLAS meanwhile.
BLAS_RACE = """
import json
import numpy  # loads OpenBLAS
from threadpoolctl import threadpool_info, threadpool_limits
from attention_talk.model import threads

def blas():
    return sorted({lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"})

seen = []
threadpool_limits(limits=2, user_api="blas")
seen.append(blas())
with threads.one_blas_thread():
    seen.append(blas())
seen.append(blas())              # a run alone gives the threads back
with threads.one_blas_thread():
    threads.one_blas_thread_for_good()  # the warm, from another thread, during the run
seen.append(blas())
with threads.one_blas_thread():
    pass
seen.append(blas())
print(json.dumps(seen))
"""


def test_a_model_run_begun_before_one_thread_for_good_does_not_give_blas_its_threads_back() -> None:
    """The server's warm sets one BLAS thread for good while the model (loaded in another thread) may
    be in a run that began with two: the run's way out restored the two, for good. Now the process
    ends at one thread whichever comes last, and later runs keep it."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    done = subprocess.run([sys.executable, "-c", BLAS_RACE], capture_output=True, text=True, env=env,
                          timeout=60, check=True)
    assert json.loads(done.stdout) == [[2], [1], [2], [1], [1]]
