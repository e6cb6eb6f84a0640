"""The house rules, checked: small files, small functions, imports in one direction.

- no source file (Python or JS) over 400 lines, no Python function over 60 lines (the JS limits
  are eslint's ``max-lines`` and ``max-lines-per-function``, run by ``make lint``);
- no import loop among the project's Python modules, nor among the JS folders;
- layers import downwards only: engine ← model ← deck ← figures ← frames ← lab ← rooms ← web ← export
  (lab, the lab's maths, sits above the frames kit it explains cells with and below web; rooms, the
  live rooms, sits beside web: web imports it, it imports nothing of web).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "attention_talk"
JS = ROOT / "static" / "js"
MAX_FILE, MAX_FUNC = 400, 60


def py_modules() -> dict[str, Path]:
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def py_imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Project modules that ``name`` imports at module level (TYPE_CHECKING blocks excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def resolve(mod: str) -> str | None:
        while mod and mod not in known:
            mod = mod.rpartition(".")[0]
        return mod or None

    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node) if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else ():
            if isinstance(sub, ast.Import):
                for alias in sub.names:
                    if alias.name.startswith("attention_talk") and (m := resolve(alias.name)):
                        found.add(m)
            elif isinstance(sub, ast.ImportFrom) and sub.module and sub.module.startswith("attention_talk"):
                for alias in sub.names:
                    m = resolve(f"{sub.module}.{alias.name}") if f"{sub.module}.{alias.name}" in known \
                        else resolve(sub.module)
                    if m:
                        found.add(m)
    found.discard(name)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state and (cyc := visit(m)):
                return cyc
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (cyc := visit(n)):
            return cyc
    return None


def test_find_cycle_sees_a_loop() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def source_files() -> list[Path]:
    return sorted([*SRC.rglob("*.py"), *JS.rglob("*.js")])


@pytest.mark.parametrize("path", source_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_source_file_over_400_lines(path: Path) -> None:
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_FILE, f"{path.relative_to(ROOT)} has {n} lines; split it (at most {MAX_FILE})"


def test_no_python_function_over_60_lines() -> None:
    long = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNC:
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}() is {n} lines")
    assert not long, "\n".join(long)


def test_no_python_import_loop() -> None:
    known = py_modules()
    graph = {name: py_imports(name, path, known) for name, path in known.items()}
    # a package's __init__ importing its own submodules is how packages work; a loop through it is not
    assert find_cycle({n: {m for m in deps if not n.startswith(m + ".")} for n, deps in graph.items()}) is None


LAYERS = ["attention_talk.formatting", "attention_talk.engine", "attention_talk.model", "attention_talk.deck",
          "attention_talk.figures", "attention_talk.frames", "attention_talk.lab", "attention_talk.rooms",
          "attention_talk.web", "attention_talk.export"]


def layer_of(mod: str) -> int | None:
    for i, prefix in enumerate(LAYERS):
        if mod == prefix or mod.startswith(prefix + "."):
            return i
    return None


def test_layers_import_downwards_only() -> None:
    known = py_modules()
    wrong = []
    for name, path in known.items():
        mine = layer_of(name)
        if mine is None:
            continue
        for dep in py_imports(name, path, known):
            theirs = layer_of(dep)
            if theirs is not None and theirs > mine:
                wrong.append(f"{name} imports {dep}")
    assert not wrong, "\n".join(wrong)


IMPORT_RE = re.compile(r"""^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}/[^'"]+)['"]"""
                       r"""|^\s*import\s+['"](\.{1,2}/[^'"]+)['"]""", re.M)


def js_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in JS.rglob("*.js"):
        deps = set()
        for m in IMPORT_RE.finditer(path.read_text(encoding="utf-8")):
            target = (path.parent / (m.group(1) or m.group(2))).resolve()
            deps.add(str(target.relative_to(JS)))
        graph[str(path.relative_to(JS))] = deps
    return graph


def test_no_js_import_loop_between_modules_or_folders() -> None:
    graph = js_graph()
    assert find_cycle(graph) is None
    folders: dict[str, set[str]] = {}
    for mod, deps in graph.items():
        here = str(Path(mod).parent)
        folders.setdefault(here, set()).update(str(Path(d).parent) for d in deps if str(Path(d).parent) != here)
    assert find_cycle(folders) is None, folders


def test_test_files_have_unique_names() -> None:
    """pytest imports test modules by their file name (no packages here): two test files of one name
    in tests/ and tests/browser/ stop the whole run at collection."""
    tests = Path(__file__).resolve().parent
    names = [p.name for p in [*tests.glob("test_*.py"), *(tests / "browser").glob("test_*.py")]]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
