"""Every third-party package that src/ imports is declared in pyproject's [project].dependencies,
or, for an optional extra (such as `export`: Playwright), imported only inside a function, so the
app runs without it."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_top_level_names(module_level: bool | None = None) -> set[str]:
    """Third-party names src/ imports; ``module_level`` True: only imports at a module's top level."""
    names: set[str] = set()
    for path in (ROOT / "src").rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        top = {id(stmt) for stmt in tree.body}
        for stmt in tree.body:  # an import under a module-level `if` or `try` runs at import time too
            if isinstance(stmt, ast.If | ast.Try):
                top.update(id(inner) for block in (stmt.body, stmt.orelse, getattr(stmt, "handlers", []))
                           for inner in block)
        for node in ast.walk(tree):
            if module_level and id(node) not in top:
                continue
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names) - {"attention_talk", "__future__"}


def normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def names(deps: list[str]) -> set[str]:
    return {normalise(re.split(r"[\s\[<>=!~;]", dep, maxsplit=1)[0]) for dep in deps}


def test_every_imported_package_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = names(project["dependencies"])
    optional = names([d for extra, deps in project["optional-dependencies"].items() if extra != "test" for d in deps])
    distributions = packages_distributions()
    at_top = imported_top_level_names(module_level=True)
    undeclared = {}
    for name in imported_top_level_names():
        dists = {normalise(d) for d in distributions.get(name, [name])}
        if dists & declared or (dists & optional and name not in at_top):
            continue
        undeclared[name] = sorted(dists)
    assert not undeclared, ("imported in src/ but not in [project].dependencies (nor in an extra and "
                            f"imported inside a function): {undeclared}")
