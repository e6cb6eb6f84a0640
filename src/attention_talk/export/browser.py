"""``--format pdf`` and ``--format png``: the talk drawn by Chromium, through Playwright (an
optional extra: ``pip install 'attention-talk[export]'``). The app answers on a free loopback port
(``local.serving``) for as long as the export runs.

- PDF: the print view (one stage-sized page per step; ``--notes`` adds the notes and narration
  beside each), printed with its own @page size, text kept as text, fonts embedded.
- PNG: the talk page at the asked size, motion reduced, one screenshot per step once its frame
  is drawn: ``<slide>-<slide id>-<step>.png``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from starlette.types import ASGIApp

from attention_talk.export.local import ExportError, serving
from attention_talk.export.site import Summary
from attention_talk.export.target import EXPORT_AGENT, Folder, check_file, protected_folders, write_file

CHROMIUM = "/usr/bin/chromium"  # Debian's package; else Playwright's own browser
# The user agent is the browser's own (a page's override does not reach the PDF): Chromium writes it
# as the PDF's /Creator, which is how a later export recognises the file as its own (target.py).
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", f"--user-agent={EXPORT_AGENT}"]
INSTALL = ("needs Chromium through Playwright: pip install 'attention-talk[export]', then "
           "python -m playwright install chromium (or apt-get install chromium)")


def chromium_path(configured: Path | None) -> str | None:
    """The binary to launch: ATTENTION_TALK_CHROMIUM (``Settings.chromium``), else Debian's when
    present, else None (Playwright's own browser)."""
    if configured is not None:
        return str(configured)
    return CHROMIUM if os.path.exists(CHROMIUM) else None


@contextmanager
def chromium(configured: Path | None = None) -> Iterator[object]:
    """A headless Chromium (``configured``: the app's ATTENTION_TALK_CHROMIUM), or ExportError with
    how to install one."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        raise ExportError(f"PDF and PNG export {INSTALL}") from None
    path = chromium_path(configured)
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch(executable_path=path, args=ARGS)
        except Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ExportError(f"Chromium did not start ({first}); PDF and PNG export {INSTALL}") from None
        try:
            yield browser
        finally:
            browser.close()


def export_pdf(app: ASGIApp, deck: str, out: Path, notes: bool = False,
               tick: Callable[[str], None] = lambda _: None, *, force: bool = False) -> Summary:
    """The print view as one PDF at ``out``: a new file or an earlier PDF export (``target.check_file``;
    ``force``: any regular file), written atomically. The browser's user agent (``ARGS``) marks the
    PDF as ours (its /Creator)."""
    start = time.perf_counter()
    check_file(out, "pdf", force, protected_folders(app.state.store.folder))
    with serving(app) as base, chromium(app.state.settings.chromium) as browser:
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base}/talk/{quote(deck)}/print{'?notes=1' if notes else ''}")
        page.wait_for_function("() => document.documentElement.dataset.ready", timeout=120_000)
        if page.evaluate("document.documentElement.dataset.ready") != "1" or errors:
            raise ExportError(f"the print view of {deck} failed: {errors[:1] or 'frames did not load'}")
        tick("print view drawn")
        pdf = page.pdf(prefer_css_page_size=True, print_background=True)
    check_file(out, "pdf", force, protected_folders(app.state.store.folder))  # again: it may have changed since
    write_file(out, pdf)
    tick("written")
    return Summary(out, 1, len(pdf), time.perf_counter() - start)


DRAWN = """async ([slide, step]) => {
  const { player, frames } = window.attentionTalk;
  player.go(slide, step);
  const id = player.slides[slide - 1].id;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  for (const until = performance.now() + 20000; !frames.peek(id, step); await frame()) {
    if (performance.now() > until) throw new Error(`no frame for ${id} step ${step}`);
  }
  await document.fonts.ready;
  await frame(); await frame();
}"""


# static/js/controllers/first-hint.js: its localStorage key, marked as seen
SEEN_HINT = "try { localStorage.setItem('attention-talk-hinted', '1'); } catch (e) {}"


def export_png(app: ASGIApp, deck: str, out: Path, size: tuple[int, int],
               tick: Callable[[str], None] = lambda _: None, *, force: bool = False) -> Summary:
    """One PNG per step into ``out``: an empty or new folder, or an earlier PNG export
    (``target.check_folder``; ``force``: any folder)."""
    start = time.perf_counter()
    folder = Folder.open(out, "png", force, protected_folders(app.state.store.folder))
    try:
        _screenshots(app, deck, folder, size, tick)
    finally:
        folder.close()
    return Summary(out, folder.files, folder.bytes, time.perf_counter() - start)


def _screenshots(app: ASGIApp, deck: str, folder: Folder, size: tuple[int, int],
                 tick: Callable[[str], None]) -> None:
    with serving(app) as base, chromium(app.state.settings.chromium) as browser:
        ctx = browser.new_context(viewport={"width": size[0], "height": size[1]}, reduced_motion="reduce",
                                  device_scale_factor=1)
        ctx.add_init_script(SEEN_HINT)  # a fresh browser is a first visit: no "→ to advance" line on the images
        page = ctx.new_page()
        page.goto(f"{base}/talk/{quote(deck)}")
        page.wait_for_selector("#player.ready", state="attached")
        slides = page.evaluate("window.attentionTalk.player.slides.map(s => [s.id, s.steps])")
        for n, (slide_id, steps) in enumerate(slides, start=1):
            for step in range(1, steps + 1):
                page.evaluate(DRAWN, [n, step])
                folder.write(f"{n:02d}-{slide_id}-{step:02d}.png", page.screenshot())
                tick(f"{slide_id} {step}/{steps}")
        ctx.close()
