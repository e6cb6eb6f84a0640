"""Every third-party package that src/ imports is declared in pyproject's [project].dependencies."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_top_level_names() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"attention_talk", "__future__"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = {normalise(re.split(r"[\s\[<>=!~;]", dep, maxsplit=1)[0]) for dep in project["dependencies"]}
    distributions = packages_distributions()
    undeclared = {}
    for name in imported_top_level_names():
        dists = {normalise(d) for d in distributions.get(name, [name])}
        if not dists & declared:
            undeclared[name] = sorted(dists)
    assert not undeclared, f"imported in src/ but not in [project].dependencies: {undeclared}"
