"""The README documents every setting (with its default and what it allows), the Docker image's
variables, and its Python snippets run as written."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from attention_talk.frames.contract import CellDerivation
from attention_talk.web.settings import Settings
from derivation_check import recompute

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def readme_settings() -> dict[str, str]:
    """``ATTENTION_TALK_X`` → its default, from the README's settings table."""
    rows = re.findall(r"^\| `(ATTENTION_TALK_[A-Z_]+)` \| ([^|]+) \|", README, flags=re.M)
    return {name: default.strip() for name, default in rows}


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_readme(name) -> None:
    field = Settings.model_fields[name]
    variable = f"ATTENTION_TALK_{name.upper()}"
    assert variable in readme_settings(), f"{variable} is missing from the README's settings table"
    assert field.description, f"Settings.{name} has no description"
    default = field.get_default(call_default_factory=False)
    if default is not None and not callable(default) and field.default_factory is None:
        shown = readme_settings()[variable].strip("`")
        assert shown == (str(default).lower() if isinstance(default, bool) else str(default)), variable


def readme_allowed() -> dict[str, str]:
    """``ATTENTION_TALK_X`` → its "Allowed" cell (the table's third column)."""
    rows = re.findall(r"^\| `(ATTENTION_TALK_[A-Z_]+)` \| [^|]+ \| ([^|]+) \|", README, flags=re.M)
    return {name: allowed.strip() for name, allowed in rows}


def _number(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


SIGNS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_settings_constraint_is_in_the_readme(name) -> None:
    """Each bound a setting has (≥, >, ≤, <) is written in its row's Allowed cell, e.g. ≥ 1,024."""
    variable = f"ATTENTION_TALK_{name.upper()}"
    cell = readme_allowed().get(variable, "")
    assert cell, f"{variable}: the README's settings table says nothing under Allowed"
    for meta in Settings.model_fields[name].metadata:
        for attr, sign in SIGNS.items():
            if getattr(meta, attr, None) is not None:
                want = f"{sign} {_number(getattr(meta, attr))}"
                assert want in cell, f"{variable}: the README's Allowed cell {cell!r} does not say {want!r}"


def test_readme_lists_no_setting_that_does_not_exist() -> None:
    known = {f"ATTENTION_TALK_{n.upper()}" for n in Settings.model_fields}
    assert set(readme_settings()) <= known


def test_the_docker_image_uses_only_documented_variables() -> None:
    used = set(re.findall(r"ATTENTION_TALK_[A-Z_]+", (ROOT / "Dockerfile").read_text()))
    assert used and used <= set(readme_settings())
    assert "docker build" in README and "docker run" in README


PYTHON_BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.M | re.S)


def test_the_readme_has_its_python_snippets() -> None:
    assert len(PYTHON_BLOCKS) >= 2
    assert any("flash_attend" in b for b in PYTHON_BLOCKS) and any("model.run(" in b for b in PYTHON_BLOCKS)


@pytest.mark.parametrize("block", PYTHON_BLOCKS, ids=[f"block{i}" for i in range(len(PYTHON_BLOCKS))])
def test_every_readme_python_snippet_runs_as_written(block, request) -> None:
    """Each ```python block, run as a reader pastes it into a fresh notebook (the real model's block
    with the model the tests share, loaded once per process)."""
    if "attention_talk.model" in block:
        request.getfixturevalue("real_model")
    namespace: dict = {"__name__": "readme"}
    exec(compile(block, "README.md", "exec"), namespace)  # the README's own code
    if "flash_attend" in block:
        a, m = namespace["a"], namespace["m"]
        assert a.weights.shape == (6, 6) and np.allclose(a.weights.sum(axis=1), 1)
        assert len(m.heads) == 2 and m.output.shape == (6, 16)
    if "model.run(" in block:
        run = namespace["run"]
        assert run.tokens == ["The", " capital", " of", " France", " is"]
        assert run.next_tokens[0].token == " Paris" and run.residual.shape == (31, 5, 576)


def test_heads_are_numbered_from_0_in_every_route_as_the_readme_says(client) -> None:
    """POST /api/attention names each head by the number the derivation route and the lab take."""
    settings = {"text": "a b c d", "d_model": 12, "heads": 3, "seed": 5}
    chain = client.post("/api/attention", json={**settings, "digits": 12, "numbers": "decimal"}).json()
    assert [h["head"] for h in chain["per_head"]] == [0, 1, 2]
    for h in chain["per_head"]:
        r = client.post("/api/attention/derivation",
                        json={**settings, "head": h["head"], "tensor": "weights", "row": 3, "col": 1})
        assert r.status_code == 200, r.text
        cell = CellDerivation.model_validate(r.json()["derivation"]["cells"][0])
        assert recompute(cell) == pytest.approx(h["weights"][3][1], abs=1e-9)
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert "0-based" in schema["Head"]["properties"]["head"]["description"]
    assert '`per_head[i]` of `POST /api/attention` has `"head": i`' in README.replace("\n", " ")
