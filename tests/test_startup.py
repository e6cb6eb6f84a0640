"""Start-up imports only what answering needs; everything heavy follows in the background or on first
use (``web/startup.py``). Checked on what a fresh interpreter has imported, never on a time (the
times are ``benchmarks/server.py startup``'s)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fastapi.testclient import TestClient

from attention_talk.web import create_app
from attention_talk.web.settings import Settings

SRC = Path(__file__).resolve().parents[1] / "src"

# What `attention-talk serve` must not import before it answers: each is imported later, by the
# background warm or by the first request that needs it.
NOT_AT_START = [
    "numpy", "attention_talk.frames.step_by_step.inputs",
    "attention_talk.frames.walkthrough.inputs", "attention_talk.frames.walkthrough",  # chapters' designed inputs
    "attention_talk.lab.chain", "attention_talk.lab.wire", "attention_talk.lab.cells",  # the lab's NumPy code
    "attention_talk.lab.model_view",
    "attention_talk.engine.attention", "attention_talk.model.forward", "attention_talk.model.runner",
    "gguf", "tokenizers",  # the real model
    "attention_talk.frames.chapters", "attention_talk.frames.kit", "attention_talk.frames.step_by_step",
    "attention_talk.frames.real_heads",  # builders
    "yaml", "latex2mathml",  # reading decks
    "jinja2", "segno",  # pages and QR codes
    "redis", "playwright", "rich", "attention_talk.export", "hypothesis",  # never needed to serve
]

# A fresh interpreter does what `attention-talk serve` does before its first answer: the CLI module,
# the app, its lifespan's start-up (the background warm is only scheduled: the loop does not run on).
AT_START = """
import asyncio, json, sys
import attention_talk.cli
from attention_talk.web.app import create_app

app = create_app()

async def main():
    async with app.router.lifespan_context(app):
        print(json.dumps({"modules": sorted(sys.modules), "read": app.state.store.is_read}))

asyncio.run(main())
"""


def run_python(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_start_up_imports_nothing_heavy_and_reads_no_deck() -> None:
    started = run_python(AT_START)
    loaded = set(started["modules"])
    assert {"fastapi", "attention_talk.web.app", "attention_talk.web.routes.api"} <= loaded  # it did start
    assert sorted(m for m in NOT_AT_START if m in loaded) == []
    assert started["read"] is False


def test_the_background_warm_brings_in_what_requests_need() -> None:
    warmed = run_python("""
import json, sys
from attention_talk.web.app import create_app
from attention_talk.web.settings import Settings
from attention_talk.web.startup import warm

app = create_app(Settings(model_preload=False))
warm(app).join()
store = app.state.store
print(json.dumps({"modules": sorted(sys.modules), "read": store.is_read, "built": sorted(store.decks),
                  "waiting": sorted(store.pending)}))
""")
    assert {"numpy", "attention_talk.lab.chain", "attention_talk.lab.wire", "attention_talk.lab.cells",
            "attention_talk.lab.model_view", "jinja2",
            "attention_talk.frames.chapters"} <= set(warmed["modules"])
    assert warmed["read"] is True
    assert warmed["built"] == ["attention-step-by-step", "attention-walkthrough",  # the designed decks
                               "deepseek-attention"]
    assert warmed["waiting"] == ["real-heads"]  # built once the model has loaded (the model router's warm)


def test_the_frame_contract_and_the_build_context_need_no_numpy_and_no_chapter() -> None:
    """The web app's schemas import the Frame contract at start-up, and every builder reads the build
    context: neither brings in NumPy or a chapter (chapter 1's story model is chapter 1's own)."""
    loaded = run_python("""
import json, sys
import attention_talk.frames.build_context, attention_talk.frames.contract
print(json.dumps(sorted(sys.modules)))
""")
    assert {"attention_talk.frames.contract", "attention_talk.frames.build_context"} <= set(loaded)
    chapters = ("attention_talk.frames.chapters", "attention_talk.frames.step_by_step",
                "attention_talk.frames.walkthrough", "attention_talk.frames.real_heads")
    assert [m for m in loaded if m == "numpy" or m.startswith(chapters)] == []


def test_lazy_re_exports_keep_their_meaning() -> None:
    """engine, model and frames load their submodules on first use of a name; a name that is also
    its submodule's (engine.rope, engine.decode) still means the function, whichever came first."""
    names = run_python("""
import json
import attention_talk.model.forward  # imports engine.rope and engine.decode directly first
from attention_talk.engine import PRESETS, attend, costs, decode, rope
from attention_talk.model import INSTALL_HINT, Model, loader
from attention_talk.frames import BUILDERS, build_deck_frames
import attention_talk.engine as engine
print(json.dumps({"rope": rope.__module__, "decode": decode.__module__, "costs": costs.__module__,
                  "attend": attend.__module__, "attr": engine.rope.__name__, "Model": Model.__module__,
                  "builders": len(BUILDERS) > 10, "presets": len(PRESETS) > 0}))
""")
    assert names == {"rope": "attention_talk.engine.rope", "decode": "attention_talk.engine.decode",
                     "costs": "attention_talk.engine.costs", "attend": "attention_talk.engine.attention",
                     "attr": "rope", "Model": "attention_talk.model.runner", "builders": True, "presets": True}


def test_health_answers_before_any_deck_is_read_and_a_page_reads_them() -> None:
    app = create_app(Settings(model_preload=False))
    store = app.state.store
    client = TestClient(app)  # no lifespan: nothing in the background
    assert client.get("/healthz").json() == {"status": "ok"}
    assert store.is_read is False
    decks = client.get("/api/decks").json()
    assert store.is_read is True
    assert [d["id"] for d in decks] == store.order == ["attention-step-by-step", "attention-walkthrough",
                                                        "deepseek-attention", "real-heads"]
    assert "attention-step-by-step" not in store.decks  # listed, not built: the first frames request builds it
    r = client.get("/api/decks/attention-step-by-step")
    assert r.status_code == 200 and "attention-step-by-step" in store.decks
