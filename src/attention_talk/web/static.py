"""The player's files (/static): Starlette's StaticFiles, each answer marked ``no-cache``.

The files have no version in their names (ES modules import each other by plain relative paths),
so a browser must not keep one on its own guess: without a Cache-Control header it may reuse a file
for a tenth of its age, and a page could then mix modules from before and after an upgrade. With
``no-cache`` it asks again each time with the ETag it holds and gets a body-less 304 while the file
is unchanged."""

from __future__ import annotations

from fastapi.staticfiles import StaticFiles
from starlette.responses import Response
from starlette.types import Scope


class Static(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.setdefault("Cache-Control", "no-cache")
        return response
