"""The web layer's glue, checked on the source (every import, at module level or inside a function):

- web's own floors: ``web/app.py`` (and the package's face) wires the routers; each router in
  ``web/routes/`` imports no other router; everything else in ``web/`` (deps, templates, the
  model's work, the store, start-up…) imports neither a router nor the app;
- one way off the event loop: only ``web/offload.py`` starts a thread or hands work to one;
- one place reads the environment: ``web/settings.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from test_architecture import py_modules as modules  # every module of the package by its dotted name

SRC = Path(__file__).resolve().parents[1] / "src" / "attention_talk"
WEB = "attention_talk.web"
ROUTES = f"{WEB}.routes"
TOP = {WEB, f"{WEB}.app"}  # the package's face and the app factory: they may import any of web


def where(path: Path) -> str:
    return str(path.relative_to(SRC.parent)) if path.is_relative_to(SRC.parent) else path.name


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (names for the type checker, never run)."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            inside.update(id(sub) for stmt in node.body for sub in ast.walk(stmt))
    return inside


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Project modules the file imports anywhere (inside functions too), TYPE_CHECKING left out; a
    name imported from a package that is its submodule counts as that submodule."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = type_checking_nodes(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("attention_talk"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("attention_talk"):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found


def is_route(name: str) -> bool:
    return name.startswith(ROUTES + ".")


def test_the_checks_see_imports_inside_functions(tmp_path) -> None:
    src = tmp_path / "m.py"
    src.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import attention_talk.web.app\n"
                   "def f():\n    from attention_talk.web.routes import pages\n")
    known = {f"{ROUTES}.pages": src}
    assert imports(src, known) == {f"{ROUTES}.pages"}


def test_no_router_imports_another_router() -> None:
    known = modules()
    wrong = [f"{name} imports {dep}" for name, path in known.items() if is_route(name)
             for dep in sorted(imports(path, known)) if is_route(dep) and dep != name]
    assert not wrong, "\n".join(wrong)


def test_no_web_module_imports_a_router_or_the_app_above_it() -> None:
    """deps, templates, model_work, offload, store, startup… sit below the routers: what two
    routers share lives down there, and start-up never reaches back up into a router."""
    known = modules()
    wrong = []
    for name, path in known.items():
        if not name.startswith(WEB + ".") or name in TOP or is_route(name) or name == ROUTES:
            continue
        wrong += [f"{name} imports {dep}" for dep in sorted(imports(path, known))
                  if is_route(dep) or dep == ROUTES or dep in TOP]
    assert not wrong, "\n".join(wrong)


# Ways of moving work off the event loop other than web/offload.py's (anyio's worker threads,
# asyncio's executor, starlette's threadpool, a thread or pool of one's own).
OFF_LOOP = {"to_thread", "run_in_executor", "run_in_threadpool", "Thread", "ThreadPoolExecutor"}


def off_loop_calls(path: Path) -> list[str]:
    """Calls whose dotted name has one of OFF_LOOP in it (``anyio.to_thread.run_sync(…)``,
    ``threading.Thread(…)``), and imports of them; a type annotation is no call."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and OFF_LOOP & set(ast.unparse(node.func).split(".")):
            found.append(f"{where(path)}:{node.lineno} {ast.unparse(node.func)}")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = {part for a in node.names for part in a.name.split(".")} | set((getattr(node, "module", None)
                                                                                    or "").split("."))
            if OFF_LOOP & names:
                found.append(f"{where(path)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_only_offload_moves_work_off_the_event_loop() -> None:
    """The web layer's one helper (``off_loop`` for work a request awaits, ``in_background`` for work
    nobody awaits); the model's own loader thread lives below web (model/loading.py) and the
    export's threads above it (export/local.py), neither on the server's event loop."""
    offload = SRC / "web" / "offload.py"
    wrong = [hit for path in sorted((SRC / "web").rglob("*.py")) if path != offload for hit in off_loop_calls(path)]
    assert not wrong, "\n".join(wrong)
    assert off_loop_calls(offload)  # the check does see a thread where there is one


ENVIRONMENT = {"environ", "getenv", "putenv", "environb", "getenvb"}


def environment_reads(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits = []
    for node in ast.walk(tree):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name in ENVIRONMENT or (isinstance(node, ast.ImportFrom) and node.module == "os"
                                   and any(a.name in ENVIRONMENT for a in node.names)):
            hits.append(f"{where(path)}:{node.lineno}")
    return hits


def test_only_the_settings_read_the_environment(tmp_path) -> None:
    """Every ATTENTION_TALK_* variable is a field of web/settings.py's Settings (documented in the
    README); a lower layer is handed the value (the model's path), a higher one reads Settings
    (export's Chromium)."""
    settings = SRC / "web" / "settings.py"
    wrong = [hit for path in sorted(SRC.rglob("*.py")) if path != settings for hit in environment_reads(path)]
    assert not wrong, "\n".join(wrong)
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom os import getenv\nx = os.environ.get('A') or getenv('B')\n")
    assert len(environment_reads(probe)) == 3
