"""The lab has one home and one name: its maths is the package ``lab/`` (the illustrative chain, its
sizes, its wire form, the cells it explains, the real model's views), on plain arguments, below
``web/``; ``docs/architecture.md`` says so in one hop; no module, name or word says "playground";
the NumPy-free sizes stay importable without NumPy; and the package's answers are the API's."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from attention_talk import lab
from attention_talk.lab.sizes import too_large

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
LAB = SRC / "attention_talk" / "lab"
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
OLD_NAME = re.compile("playground", re.I)


def shipped_files() -> list[Path]:
    """What a reader of the code, the docs or the page meets: sources, page scripts, templates, docs."""
    return sorted([*(SRC / "attention_talk").rglob("*.py"), *(ROOT / "static" / "js").rglob("*.js"),
                   *(ROOT / "templates").rglob("*.html"), *(ROOT / "docs").glob("*.md"), ROOT / "README.md"])


def test_nothing_is_called_playground() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in shipped_files()
             for n, line in enumerate([p.name, *p.read_text(encoding="utf-8").splitlines()])
             if OLD_NAME.search(line)]
    assert found == []


def lab_modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(LAB.glob("*.py"))}


def test_the_lab_is_one_package_of_the_five_parts() -> None:
    assert sorted(lab_modules()) == ["__init__", "cells", "chain", "model_view", "sizes", "wire"]


def imported(path: Path) -> set[str]:
    """Every module a file imports, at any depth (inside functions too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


@pytest.mark.parametrize("name", sorted(lab_modules()))
def test_the_lab_takes_plain_arguments_and_knows_no_web(name) -> None:
    """The lab's maths is called with plain values: it imports nothing of the web layer, no HTTP
    framework, no request model."""
    web = sorted(m for m in imported(lab_modules()[name])
                 if m.split(".")[0] in {"fastapi", "starlette", "httpx"} or m.startswith("attention_talk.web"))
    assert web == []


def test_sizes_import_without_numpy() -> None:
    """The schemas and the size check need the tensor names and counts at start-up; NumPy follows
    later: with NumPy unimportable, the sizes, the package and the web schemas still import."""
    code = ("import json, sys\nsys.modules['numpy'] = None\n"
            "import attention_talk.lab, attention_talk.lab.sizes, attention_talk.web.schemas\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('attention_talk.lab'))))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout) == ["attention_talk.lab", "attention_talk.lab.sizes"]


def table_rows(heading: str) -> list[list[str]]:
    """The rows of the table under ``## heading`` in docs/architecture.md, as lists of cells."""
    section = ARCHITECTURE.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| ---")]


def test_where_the_lab_maths_is_takes_one_hop_in_the_architecture_doc() -> None:
    """"Where is the lab's maths?" is a row of "To change X, edit Y" that names ``lab/``, and the
    module table's ``lab/`` row names every module of the package."""
    change = [row for row in table_rows("To change X, edit Y") if row[0].startswith("the lab's maths")]
    assert len(change) == 1 and change[0][1].startswith("`lab/`")
    row = [r for r in table_rows("Python modules") if r[0] == "`lab/`"]
    assert len(row) == 1
    assert [m for m in lab_modules() if m != "__init__" and f"`{m}.py`" not in row[0][1]] == []


SETTINGS = {"d_model": 16, "heads": 4, "d_k": 4, "causal": True, "temperature": 0.5, "seed": 3}
TOKENS = ["the", "old", "dog", "sleeps"]


def test_the_chain_on_plain_arguments_is_the_apis_answer(client) -> None:
    body = {"tokens": TOKENS, **SETTINGS, "digits": 6, "numbers": "scaled", "include": ["scores", "masked", "final"]}
    r = client.post("/api/attention", json=body)
    chain = lab.illustrative_chain(TOKENS, **SETTINGS)
    mine = lab.chain_json(chain, d_model=16, heads=4, d_k=4, digits=6, include=body["include"], numbers="scaled")
    assert r.status_code == 200
    assert r.json() == orjson.loads(orjson.dumps(mine, option=orjson.OPT_SERIALIZE_NUMPY))
    assert r.json()["per_head"][1]["masked"][0][1] is None  # −∞ above the diagonal, written as null


def test_a_cell_on_plain_arguments_is_the_apis_answer(client) -> None:
    cell = {"head": 2, "tensor": "weights", "row": 3, "col": 1}
    r = client.post("/api/attention/derivation", json={"tokens": TOKENS, **SETTINGS, **cell})
    assert r.status_code == 200 and r.json() == lab.chain_cell(TOKENS, **SETTINGS, **cell)
    with pytest.raises(lab.FieldError, match=r"^head: 4 is out of range; there are 4 heads \(0–3\)$"):
        lab.chain_cell(TOKENS, **SETTINGS, **{**cell, "head": 4})


def test_too_large_names_the_fields_that_would_shrink_the_answer() -> None:
    assert too_large(4, d_model=16, heads=4, d_k=4, include=["weights"], limit=64) is None  # 4 × 4² = 64
    refused = too_large(4, d_model=16, heads=4, d_k=4, include=["weights", "final"], limit=64)
    assert refused is not None and refused["numbers"] == 64 + 4 * 16 and refused["limit"] == 64
    assert refused["reduce"] == ["tokens", "heads", "d_model", "include"]
