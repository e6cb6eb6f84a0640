"""Each chapter owns its designed inputs: no module outside a chapter's package reads them (the
package root's modules: tests/test_architecture.py ROOT_MODULES)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "attention_talk"
CHAPTER_INPUTS = {"attention_talk.frames.step_by_step.inputs": "frames/step_by_step/",
                  "attention_talk.frames.walkthrough.inputs": "frames/walkthrough/"}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth (inside functions too), as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_each_chapters_inputs_live_in_its_package_and_only_it_reads_them() -> None:
    for module, home in CHAPTER_INPUTS.items():
        assert (SRC / home / "inputs.py").is_file(), module
        readers = sorted(str(p.relative_to(SRC)) for p in SRC.rglob("*.py")
                         if module in imported_modules(p) and not str(p.relative_to(SRC)).startswith(home))
        assert readers == [], f"{module} is read outside its chapter by {readers}"
