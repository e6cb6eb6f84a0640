"""``attention-talk export DECK --format site``: a folder that plays the talk on any static host.

Every page is asked of the app itself (``local.get``), so the export is the live talk's own HTML,
JSON and assets; only its links change: absolute URLs become relative ones (the folder works at a
host's root or under any path), frames become ``api/decks/<deck>/slides/<slide>/frames.json``, and
what needs the server (the lab, rooms, the API docs) points to a page that says so. The <html>
element gets ``data-root`` (the way up to the folder's root), which the player reads
(``static/js/lib/site.js``).

Layout::

    index.html                            the decks exported
    needs-server.html                     what only the server can do
    talk/<deck>/index.html                the player        (…/presenter/, …/print/, …/print/notes/)
    api/decks/<deck>/slides/<slide>/frames.json         (and derivations.json)
    static/…                              CSS, JS, icons
"""

from __future__ import annotations

import html
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import orjson
from starlette.types import ASGIApp

from attention_talk.export.local import get
from attention_talk.export.target import Folder, protected_folders
from attention_talk.paths import data_dir

# page (under talk/<deck>/) → (the server's path after /talk/<deck>, its query)
TALK_PAGES = {"": ("", ""), "presenter/": ("/presenter", ""), "print/": ("/print", ""),
              "print/notes/": ("/print", "notes=1")}
NEEDS_SERVER = "needs-server.html"
_LINK = re.compile(r'(\b(?:href|src)=")(/[^"]*)(")')
_TALK = re.compile(r"^/talk/([^/?#]+)(/presenter|/print)?/?$")


@dataclass(frozen=True)
class Summary:
    out: Path
    files: int
    bytes: int
    seconds: float

    def line(self) -> str:
        return f"{self.out}: {self.files} files, {self.bytes / 1e6:.1f} MB in {self.seconds:.1f} s"


def local_path(url: str, decks: set[str]) -> str:
    """Where a server URL lives in the export, relative to its root ('' is the index)."""
    path, _, fragment = url.partition("#")
    path, _, query = path.partition("?")
    tail = f"#{fragment}" if fragment else ""
    if path in ("", "/"):
        return "index.html" + tail
    if path.startswith("/static/"):
        return path[1:] + tail
    m = _TALK.match(path)
    if m and m.group(1) in decks:
        page = {None: "", "/presenter": "presenter/", "/print": "print/"}[m.group(2)]
        if page == "print/" and "notes=1" in query:
            page = "print/notes/"
        return f"talk/{m.group(1)}/{page}{tail}"
    return NEEDS_SERVER


def relink(markup: str, depth: int, decks: set[str]) -> str:
    """Every absolute link made relative to a page ``depth`` folders below the root; the <html>
    element told the way up (data-root)."""
    up = "../" * depth or "./"
    markup = _LINK.sub(lambda m: f"{m.group(1)}{up}{local_path(html.unescape(m.group(2)), decks)}{m.group(3)}",
                       markup)
    return markup.replace("<html ", f'<html data-root="{up}" ', 1)


def _only(index: str, decks: set[str]) -> str:
    """The server's index, listing only the decks exported."""
    def keep(m: re.Match) -> str:
        return m.group(0) if m.group(1) in decks else ""
    return re.sub(r'<li><a href="/talk/([^"/]+)".*?</li>\s*', keep, index, flags=re.S)


def _needs_server() -> str:
    return """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Needs the server · attention-talk</title><link rel="stylesheet" href="static/css/colours.css">
<link rel="stylesheet" href="static/css/talk.css"></head>
<body class="page-index"><main class="index"><h1>This part needs the server</h1>
<p class="lede">This copy of the talk is a static export: every step plays, with its speaker view
and print view, but nothing is computed here. The lab (attention on your own sentence), live rooms
and the API need attention-talk running: <code>pip install attention-talk</code>, then
<code>attention-talk serve</code>, and open http://127.0.0.1:8000.</p>
<p class="meta"><a href="index.html">Back to the talks</a></p></main></body></html>
"""


def _static_files(static: Path):
    """(path under static/, the file) for every file of the static folder."""
    for folder, _, names in os.walk(static):
        for name in sorted(names):
            f = Path(folder) / name
            yield f.relative_to(static).as_posix(), f


def export_site(app: ASGIApp, out: Path, deck_ids: list[str],
                tick: Callable[[str], None] = lambda _: None, *, force: bool = False) -> Summary:
    """Write the decks ``deck_ids`` (their manifests come from the app) as a static site into ``out``:
    an empty or new folder, or an earlier site export (``target.check_folder``; ``force``: any folder)."""
    start = time.perf_counter()
    w = Folder.open(out, "site", force, protected_folders(app.state.store.folder))
    try:
        _write_site(app, w, deck_ids, tick)
    finally:
        w.close()
    return Summary(out, w.files, w.bytes, time.perf_counter() - start)


def _write_site(app: ASGIApp, w: Folder, deck_ids: list[str], tick: Callable[[str], None]) -> None:
    decks = set(deck_ids)
    w.write("index.html", relink(_only(get(app, "/").decode(), decks), 0, decks))
    w.write(NEEDS_SERVER, _needs_server())
    for deck in deck_ids:
        manifest = orjson.loads(get(app, f"/api/decks/{quote(deck)}"))
        for page, (suffix, query) in TALK_PAGES.items():
            markup = get(app, f"/talk/{quote(deck)}{suffix}", query).decode()
            w.write(f"talk/{deck}/{page}index.html", relink(markup, 2 + page.count("/"), decks))
        for slide in manifest["slides"]:
            for what in ("frames", "derivations"):
                body = get(app, f"/api/decks/{quote(deck)}/slides/{quote(slide['id'])}/{what}")
                w.write(f"api/decks/{deck}/slides/{slide['id']}/{what}.json", body)
            tick(f"{deck}: {slide['id']}")
    for rel, f in _static_files(data_dir("static")):
        w.write(f"static/{rel}", f.read_bytes())
