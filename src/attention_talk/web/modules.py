"""The player's ES modules, for ``<link rel="modulepreload">``: a page names its entry module and
gets every module that entry imports, directly or not, so the browser fetches them all at once
instead of discovering them one import level at a time (a waterfall of round trips)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import PurePosixPath

from attention_talk.paths import data_dir

_IMPORT = re.compile(r"""^\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}/[^'"]+)['"]"""
                     r"""|^\s*import\s+['"](\.{1,2}/[^'"]+)['"]""", re.M)


@cache
def module_graph(entry: str) -> tuple[str, ...]:
    """``/static/js/…`` URLs of every module ``entry`` (a path under static/js) imports, entry
    excluded, in the order they are first reached (breadth first: the nearest first)."""
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


def _normal(path: PurePosixPath) -> str:
    parts: list[str] = []
    for part in path.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)
