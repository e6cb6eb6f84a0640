"""The house rules, checked: small files, small functions, imports in one direction, a true map.

- no source file (Python or JS) over 400 lines, no Python function over 60 lines (the JS limits
  are eslint's ``max-lines`` and ``max-lines-per-function``, run by ``make lint``);
- every module of the package stands in one of ``LAYERS`` and imports only from its own layer and
  the layers below; no import loop among the modules. Every import counts, wherever it stands: at
  module level, inside functions, under ``TYPE_CHECKING``; relative ones are resolved;
- no import loop among the JS modules, nor among the JS folders;
- the package root holds only what every part shares (``ROOT_MODULES``);
- ``docs/architecture.md`` names only paths that exist, names every module (Python and JS), and
  gives the layers in the order of ``LAYERS``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "attention_talk"
JS = ROOT / "static" / "js"
DOC = ROOT / "docs" / "architecture.md"
MAX_FILE, MAX_FUNC = 400, 60

# The layers, lowest first. A module may import from its own layer and the layers before it, never
# from one after. Each entry lists top-level modules and folders of the package; the first names the
# layer, as docs/architecture.md does. A new top-level module or folder goes into one of them.
LAYERS: list[tuple[str, ...]] = [
    ("formatting", "lazy", "paths", "__init__"),  # leaves: they import nothing of the project
    ("engine",),
    ("model",),
    ("deck", "mathml"),
    ("frames",),
    ("lab",),  # the lab's maths: above the frames kit it explains cells with, below web
    ("rooms",),  # beside web: web imports it, it imports nothing of web
    ("web",),
    ("export",),
    ("cli", "__main__"),  # the command line, over everything
]

# Imports allowed to run up the layers, (importer, imported) -> why, and the issue that removes it.
UPWARD_EXCEPTIONS: dict[tuple[str, str], str] = {}

# The package root once issue 28 is done: only what every part shares, at most MAX_ROOT_MODULES.
ROOT_MODULES = {"__init__", "__main__", "cli", "deck", "formatting", "lazy", "mathml", "paths"}
MAX_ROOT_MODULES = 8


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


# ---- Python imports -------------------------------------------------------------------------------

def py_modules(src: Path = SRC) -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its ``__init__.py``)."""
    out = {}
    for path in sorted(src.rglob("*.py")):
        parts = path.relative_to(src.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


@dataclass(frozen=True)
class Import:
    """One import of a project module: which module, which module it resolves to, and where."""

    importer: str
    imported: str
    path: Path
    line: int

    def __str__(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.line}: {self.importer} imports {self.imported}"


def imports_of(name: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """Every project import in ``path``, wherever it stands (module level, functions, classes,
    ``TYPE_CHECKING``, ``try``), relative ones made absolute. Each resolves to the deepest module it
    names: ``from pkg import sub`` is ``pkg.sub`` when that is a module, else ``pkg``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        for target in _targets(node, package):
            module = _resolve(target, known)
            if module and module != name:
                found.append(Import(name, module, path, node.lineno))
    return found


def _targets(node: ast.AST, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:  # from . import x, from ..y import z: counted from the importing module's package
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    return [f"{base}.{alias.name}" for alias in node.names]


def _resolve(target: str, known: dict[str, Path]) -> str | None:
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


@cache
def project_imports() -> tuple[Import, ...]:
    known = py_modules()
    return tuple(i for name, path in known.items() for i in imports_of(name, path, known))


def test_imports_are_seen_wherever_they_stand(tmp_path: Path) -> None:
    pkg = tmp_path / "attention_talk"
    (pkg / "sub").mkdir(parents=True)
    for name in ("__init__.py", "a.py", "sub/__init__.py", "sub/c.py"):
        (pkg / name).write_text("")
    (pkg / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "import numpy\n"
        "from . import c\n"
        "if TYPE_CHECKING:\n"
        "    from attention_talk.a import thing\n"
        "def f():\n"
        "    from ..a import other\n"
        "class K:\n"
        "    def m(self):\n"
        "        import attention_talk.sub.c\n"
        "        from .. import sub\n")
    known = py_modules(pkg)
    seen = {(i.imported, i.line) for i in imports_of("attention_talk.sub.b", pkg / "sub" / "b.py", known)}
    assert seen == {("attention_talk.sub.c", 3), ("attention_talk.a", 5), ("attention_talk.a", 7),
                    ("attention_talk.sub.c", 10), ("attention_talk.sub", 11)}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return next((i for i, names in enumerate(LAYERS) if top in names), None)


def upward(imports: tuple[Import, ...]) -> list[str]:
    """The imports that run from a layer up to a later one, each with its file and line."""
    wrong = []
    for i in imports:
        mine, theirs = layer_of(i.importer), layer_of(i.imported)
        if None not in (mine, theirs) and theirs > mine and (i.importer, i.imported) not in UPWARD_EXCEPTIONS:
            wrong.append(f"{i}: layer {LAYERS[mine][0]!r} may not import layer {LAYERS[theirs][0]!r}, "
                         "which is above it (tests/test_architecture.py LAYERS)")
    return wrong


def test_upward_sees_an_import_up_the_layers() -> None:
    up = Import("attention_talk.engine.attention", "attention_talk.web.app", SRC / "engine" / "attention.py", 7)
    down = Import("attention_talk.web.app", "attention_talk.engine.attention", SRC / "web" / "app.py", 3)
    assert upward((up, down)) == [
        "src/attention_talk/engine/attention.py:7: attention_talk.engine.attention imports attention_talk.web.app: "
        "layer 'engine' may not import layer 'web', which is above it (tests/test_architecture.py LAYERS)"]


def test_every_module_stands_in_a_layer() -> None:
    lost = [name for name in py_modules() if layer_of(name) is None]
    assert not lost, f"modules in no layer: {lost}; add their top-level name to LAYERS in tests/test_architecture.py"


def test_layers_import_downwards_only() -> None:
    assert any(i.importer == "attention_talk.cli" for i in project_imports())  # cli imports inside its commands
    wrong = upward(project_imports())
    assert not wrong, "\n".join(wrong)


def test_no_python_import_loop() -> None:
    imports = project_imports()
    graph: dict[str, set[str]] = {}
    for i in imports:
        # a package's __init__ importing its own submodules is how packages work; a loop through it is not
        if not i.importer.startswith(i.imported + "."):
            graph.setdefault(i.importer, set()).add(i.imported)
    cycle = find_cycle(graph)
    where = {(i.importer, i.imported): i for i in imports}
    assert cycle is None, "an import loop:\n" + "\n".join(str(where[e]) for e in pairwise(cycle))


def test_the_package_root_holds_only_what_every_part_shares() -> None:
    assert len(ROOT_MODULES) <= MAX_ROOT_MODULES
    root = {path.stem for path in SRC.glob("*.py")}
    assert root == ROOT_MODULES, (
        f"the package root holds {sorted(root - ROOT_MODULES)} beyond ROOT_MODULES and lacks "
        f"{sorted(ROOT_MODULES - root)}: a module used by one part belongs in that part's package")


# ---- docs/architecture.md ------------------------------------------------------------------------

PATH_LIKE = re.compile(r"[\w.*-]+(?:/[\w.*-]+)*(?:\.(?:py|js|css|html|md|yaml|toml|json)|/)")
DOC_BASES = (ROOT, SRC, JS, ROOT / "static" / "css", ROOT / "templates")


def doc_mentions(text: str) -> list[tuple[int, list[str]]]:
    """The paths the doc names (in backticks; in its diagrams, bare), grouped by the table row or
    paragraph they stand in, each group with its first line: a bare ``attention.py`` in the
    ``engine/`` row is ``engine/attention.py``. Placeholders (``frames/<chapter>/``) and URLs
    (``/openapi.json``) are not paths."""
    groups: list[tuple[int, list[str]]] = []
    paragraph: tuple[int, list[str]] = (1, [])
    fenced = False
    for n, line in enumerate(text.splitlines(), start=1):
        spans = [s for s in re.findall(r"`([^`]+)`", line) if PATH_LIKE.fullmatch(s)]
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            groups.append((n, [w for w in (w.strip(",.;:()") for w in line.split()) if PATH_LIKE.fullmatch(w)]))
        elif line.startswith("|") or not line.strip():
            groups += [paragraph, (n, spans)]
            paragraph = (n + 1, [])
        else:
            paragraph[1].extend(spans)
    return [g for g in [*groups, paragraph] if g[1]]


def doc_path(name: str, context: list[Path]) -> list[Path]:
    """What ``name`` stands for: relative to the folders named before it in its row or paragraph
    (the latest first), else to the checkout, the package, static/js, static/css or templates. A
    ``folder/`` must be a folder, a glob must match."""
    for base in [*reversed(context), *DOC_BASES]:
        if "*" in name:
            hits = sorted(base.glob(name))
        else:
            path = base / name.rstrip("/")
            hits = [path] if (path.is_dir() if name.endswith("/") else path.is_file()) else []
        if hits:
            return hits
    return []


@cache
def doc_paths() -> tuple[dict[Path, str], list[str]]:
    """Every path the doc names, resolved (path -> how the doc wrote it), and the names that resolve to nothing."""
    named: dict[Path, str] = {}
    missing = []
    for line, group in doc_mentions(DOC.read_text(encoding="utf-8")):
        context: list[Path] = []
        for name in group:
            hits = doc_path(name, context)
            missing += [] if hits else [f"docs/architecture.md:{line}: {name}"]
            for hit in hits:
                named[hit] = name
                context.append(hit if hit.is_dir() else hit.parent)
    return named, missing


def test_doc_mentions_reads_rows_paragraphs_and_diagrams() -> None:
    text = ("| `engine/` | `attention.py`, `gqa.py` |\n\nsee `a.py` and\n`views/b.js`, `/x.json`, `f/<c>/`\n"
            "```\n  ├─▶ web/routes/api.py    JSON: /api/decks\n```\n")
    assert doc_mentions(text) == [(1, ["engine/", "attention.py", "gqa.py"]), (6, ["web/routes/api.py"]),
                                  (3, ["a.py", "views/b.js"])]
    assert doc_path("attention.py", [SRC / "engine"]) == [SRC / "engine" / "attention.py"]
    assert doc_path("attention.py", []) == [] and doc_path("engine/", []) == [SRC / "engine"]


def test_architecture_doc_names_only_paths_that_exist() -> None:
    _, missing = doc_paths()
    assert not missing, "docs/architecture.md names paths that do not exist:\n" + "\n".join(missing)


def test_architecture_doc_names_every_module() -> None:
    """Every Python and JS module, by its path or its name in its folder's row (a package's
    ``__init__.py`` by its folder): a new module gets its line in the same commit."""
    named, _ = doc_paths()
    modules = sorted([*SRC.rglob("*.py"), *JS.rglob("*.js")])
    unnamed = [str(m.relative_to(ROOT)) for m in modules
               if m not in named and not (m.name == "__init__.py" and m.parent in named)]
    assert not unnamed, f"docs/architecture.md does not name these modules: {unnamed}"


def test_architecture_doc_gives_the_layers_in_order() -> None:
    chain = re.search(r"`\w+`(?:\s*←\s*`\w+`)+", DOC.read_text(encoding="utf-8"))
    assert chain, "docs/architecture.md lost its line of layers (`formatting` ← `engine` ← …)"
    existing = [names[0] for names in LAYERS if (SRC / names[0]).is_dir() or (SRC / f"{names[0]}.py").is_file()]
    written = re.findall(r"`(\w+)`", chain.group(0))
    assert written == existing, f"docs/architecture.md gives the layers as {written}, LAYERS as {existing}"


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
