"""The player's files (/static): Starlette's StaticFiles, with a Cache-Control header on each answer.

The code (JS modules, CSS) has no version in its names (ES modules import each other by plain
relative paths), so a browser must not keep it on its own guess: without a Cache-Control header it
may reuse a file for a tenth of its age, and a page could then mix modules from before and after an
upgrade. Code is ``no-cache``: asked again each time with the ETag held, a body-less 304 while the
file is unchanged. Images and fonts do not depend on the code's version and are kept for a day: the
browser asks for the page's icon again whenever the URL changes, on every step, and a round trip to
the server there delayed the step's paint (benchmarks/keypaint.py: painted p50 34 ms instead of 45)."""

from __future__ import annotations

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope

CODE = (".js", ".mjs", ".css", ".html", ".json", ".map")
KEPT = "public, max-age=86400"


def cache_control(path: str) -> str:
    """``no-cache`` for code (and anything unknown), a day for images and fonts."""
    return "no-cache" if path.lower().endswith(CODE) or "." not in path.rsplit("/", 1)[-1] else KEPT


class Static(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.setdefault("Cache-Control", cache_control(path))
        return response
