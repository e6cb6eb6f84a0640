"""Where modules live: the package root holds only what every layer shares, and each chapter owns
its designed inputs (no module outside a chapter's package reads them)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "attention_talk"
ROOT_AT_MOST = 8
# Issue 28's item 1 moves these two into the lab's package; the lead drops this line when it merges.
MOVED_BY_THE_LAB_ITEM = {"playground.py", "playground_tensors.py"}
CHAPTER_INPUTS = {"attention_talk.frames.step_by_step.inputs": "frames/step_by_step/",
                  "attention_talk.frames.walkthrough.inputs": "frames/walkthrough/"}


def test_the_package_root_holds_at_most_eight_modules() -> None:
    root = sorted(p.name for p in SRC.glob("*.py") if p.name not in MOVED_BY_THE_LAB_ITEM)
    assert len(root) <= ROOT_AT_MOST, f"{len(root)} modules at the package root: {root}"


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
