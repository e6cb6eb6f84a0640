"""A reveal.js 5 anchor deck for the key-to-paint benchmark: 13 slides with 3 fragments each (39),
built from the npm package (node_modules/reveal.js, a dev dependency) into a temporary folder and
served by a plain static file server. Only for measuring; nothing of reveal.js ships."""

from __future__ import annotations

import contextlib
import functools
import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REVEAL = ROOT / "node_modules" / "reveal.js" / "dist"
SLIDES, FRAGMENTS = 13, 3

SLIDE = """<section><h2>Slide {n}: queries meet keys</h2>
<table><tr><th></th><th>the</th><th>old</th><th>dog</th></tr>
<tr><th>the</th><td>1.00</td><td>0.00</td><td>0.00</td></tr>
<tr><th>old</th><td>0.51</td><td>0.49</td><td>0.00</td></tr></table>
{fragments}</section>"""

PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>anchor</title>
<link rel="stylesheet" href="reveal.css"><link rel="stylesheet" href="theme/black.css"></head>
<body><div class="reveal"><div class="slides">{slides}</div></div>
<script src="reveal.js"></script>
<script src="init.js"></script>
</body></html>"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


# How the anchor writes its URL. "hash" is reveal.js's usual set-up: the URL follows the deck, but
# written at most once a second (Location.debouncedReplaceState), so most presses write nothing.
# "history" writes the URL on every step, as attention-talk does (a reload or Back straight after a
# key must land on that step): the like-for-like anchor.
URL_MODES = {"hash": "{ hash: true }", "history": "{ history: true }"}
INIT = """Reveal.initialize(Object.assign({transition: "slide"}, %s)).then(() => { window.revealReady = true; });"""


def available() -> bool:
    return (REVEAL / "reveal.js").exists()


@contextlib.contextmanager
def anchor_deck(url_mode: str = "hash") -> Iterator[tuple[str, int]]:
    """Serve the anchor deck, writing its URL as ``url_mode`` says (URL_MODES); yields its URL and its
    number of steps (slides + fragments)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name in ("reveal.js", "reveal.css"):
            shutil.copy(REVEAL / name, folder / name)
        shutil.copytree(REVEAL / "theme", folder / "theme")
        frags = "".join(f'<p class="fragment">Fragment {k + 1}: a row of weights</p>' for k in range(FRAGMENTS))
        slides = "".join(SLIDE.format(n=n + 1, fragments=frags) for n in range(SLIDES))
        (folder / "index.html").write_text(PAGE.format(slides=slides), encoding="utf-8")
        (folder / "init.js").write_text(INIT % URL_MODES[url_mode], encoding="utf-8")
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/index.html", SLIDES * (FRAGMENTS + 1)
        finally:
            server.shutdown()
            server.server_close()
