"""The player's ES modules, for ``<link rel="modulepreload">``: a page names its entry module (and
the widget kinds its first slide draws) and gets every module its first paint needs, so the browser
fetches them all at once instead of discovering them one import level at a time (a waterfall of
round trips), and fetches nothing else before that paint. The talk page preloads the first slide's
views from prepaint.js, and only when it opens on that slide (``first_views``).

Only static imports are followed: what a module loads with ``import()`` (the controllers bound after
the first paint, in ``startup.js`` and ``main.js``; the widget views of later slides) waits until it
is needed. A widget kind's view is the module named for it in ``views/widget-views.js``'s table
(``"kind": () => import("./kind.js")``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import PurePosixPath

from attention_talk.paths import data_dir

_IMPORT = re.compile(r"""^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}/[^'"]+)['"]"""
                     r"""|^\s*import\s+['"](\.{1,2}/[^'"]+)['"]""", re.M)
_VIEW = re.compile(r"""^\s*["']?([\w-]+)["']?\s*:\s*\(\)\s*=>\s*import\(\s*["'](\./[^'"]+)["']\s*\)""", re.M)
VIEWS_TABLE = "views/widget-views.js"


@cache
def module_graph(entry: str) -> tuple[str, ...]:
    """``/static/js/…`` URLs of every module ``entry`` (a path under static/js) imports statically,
    directly or not, entry excluded, in the order they are first reached (breadth first: the
    nearest first)."""
    root = data_dir("static") / "js"
    seen: dict[str, None] = {}
    queue = [PurePosixPath(entry)]
    while queue:
        module = queue.pop(0)
        source = (root / module).read_text(encoding="utf-8")
        for m in _IMPORT.finditer(source):
            target = PurePosixPath(_normal(module.parent / (m.group(1) or m.group(2))))
            key = str(target)
            if key not in seen and key != entry:
                seen[key] = None
                queue.append(target)
    return tuple(f"/static/js/{m}" for m in seen)


@cache
def widget_views() -> dict[str, str]:
    """Widget kind → the path (under static/js) of the view module that draws it."""
    table = (data_dir("static") / "js" / VIEWS_TABLE).read_text(encoding="utf-8")
    base = PurePosixPath(VIEWS_TABLE).parent
    return {kind: _normal(base / path) for kind, path in _VIEW.findall(table)}


@cache
def _first_paint(entry: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
    urls = dict.fromkeys(module_graph(entry))
    views = widget_views()
    for kind in kinds:
        if kind in views:
            urls.update(dict.fromkeys((f"/static/js/{views[kind]}", *module_graph(views[kind]))))
    urls.pop(f"/static/js/{entry}", None)
    return tuple(urls)


def first_paint_modules(entry: str, kinds: Iterable[str] = ()) -> tuple[str, ...]:
    """What a page's first paint loads: ``entry``'s static graph, then the view of each widget kind
    in ``kinds`` (those its first slide draws) with its own static graph, each URL once."""
    return _first_paint(entry, tuple(sorted(set(kinds))))


def first_views(entry: str, kinds: Iterable[str] = ()) -> tuple[str, ...]:
    """What ``first_paint_modules(entry, kinds)`` adds to ``entry``'s own graph: the first slide's
    views and their imports. The talk page names them apart (``data-first-views``) and prepaint.js
    preloads them only when the page opens on the first slide: a step opened by its link elsewhere
    does not fetch the title slide's views before it is drawn."""
    own = set(first_paint_modules(entry))
    return tuple(u for u in first_paint_modules(entry, kinds) if u not in own)


def _normal(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)
