"""The player's files (/static): Starlette's StaticFiles, with a Cache-Control header on each answer,
and the JS and CSS without their comments (``Static``, ``strip``: web/strip.py), compressed once.

The code (JS modules, CSS) has no version in its names (ES modules import each other by plain
relative paths), so a browser must not keep it on its own guess: without a Cache-Control header it
may reuse a file for a tenth of its age, and a page could then mix modules from before and after an
upgrade. Code is ``no-cache``: asked again each time with the ETag held, a body-less 304 while the
file is unchanged. Images and fonts do not depend on the code's version and are kept for a day: the
browser asks for the page's icon again whenever the URL changes, on every step, and a round trip to
the server there delayed the step's paint (benchmarks/keypaint.py: painted p50 34 ms instead of 45)."""

from __future__ import annotations

import os
import stat

from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Scope

from attention_talk.web.compression import Payload, cached_body
from attention_talk.web.offload import off_loop
from attention_talk.web.strip import strip_css, strip_js

CODE = (".js", ".mjs", ".css", ".html", ".json", ".map")
KEPT = "public, max-age=86400"
STRIPPED = {".js": (strip_js, "text/javascript; charset=utf-8"), ".mjs": (strip_js, "text/javascript; charset=utf-8"),
            ".css": (strip_css, "text/css; charset=utf-8")}


def cache_control(path: str) -> str:
    """``no-cache`` for code (and anything unknown), a day for images and fonts."""
    return "no-cache" if path.lower().endswith(CODE) or "." not in path.rsplit("/", 1)[-1] else KEPT


class Static(StaticFiles):
    """With ``strip``, JS and CSS leave without their comments (web/strip.py), each version of a file (its path,
    mtime and size) stripped and compressed once at maximum effort and kept (web/compression.py
    ``cached_body``: brotli or gzip, its ETag, a 304 while it is unchanged); every other file, and a
    JS or CSS file the stripper cannot read, as Starlette's StaticFiles sends it."""

    def __init__(self, *args, strip: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.strip = strip  # the player's own files: yes; a vendor's (/docs-assets, minified already): no
        self._kept: dict[str, tuple[tuple[int, int], Payload | None]] = {}

    async def get_response(self, path: str, scope: Scope) -> Response:
        kind = STRIPPED.get(os.path.splitext(path)[1].lower()) if self.strip else None
        if kind is not None and scope["method"] in ("GET", "HEAD"):
            # The kept copy is looked up on the loop (one stat); only building one (read, strip, brotli 11)
            # goes to a worker thread.
            found, payload = self.kept(path)
            if not found:
                payload = await off_loop(self.stripped, path, kind[0])
            if payload is not None:
                return await cached_body(Request(scope), payload, kind[1], cache_control(path))
        response = await super().get_response(path, scope)
        response.headers.setdefault("Cache-Control", cache_control(path))
        return response

    def kept(self, path: str) -> tuple[bool, Payload | None]:
        """(True, the kept Payload or None) when this version of the file at ``path`` was stripped
        already, else (False, None): not built yet, changed since, or not a file."""
        full, st = self.lookup_path(path)
        if st is None or not stat.S_ISREG(st.st_mode):
            return False, None
        kept = self._kept.get(full)
        if kept is None or kept[0] != (st.st_mtime_ns, st.st_size):
            return False, None
        return True, kept[1]

    def stripped(self, path: str, strip) -> Payload | None:
        """The file at ``path`` without its comments, as a Payload (kept per version of the file),
        or None: not a file here, or not one the stripper can read (then sent as it is)."""
        full, st = self.lookup_path(path)
        if st is None or not stat.S_ISREG(st.st_mode):
            return None
        version = (st.st_mtime_ns, st.st_size)
        kept = self._kept.get(full)
        if kept is None or kept[0] != version:
            try:
                with open(full, encoding="utf-8") as f:
                    body = strip(f.read()).encode("utf-8")
                kept = (version, Payload.of_bytes(body))
            except (ValueError, UnicodeDecodeError):
                kept = (version, None)
            self._kept[full] = kept
        return kept[1]
