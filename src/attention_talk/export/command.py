"""What ``attention-talk export`` does once its options are read: check them and the out path, build
the app once, run the export with a progress bar (rich) and end with one summary line that counts
the whole command's time (building the decks included)."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from attention_talk.export.local import ExportError
from attention_talk.export.target import check_file, check_folder, protected_folders

Format = Literal["site", "pdf", "png"]
_SIZE = re.compile(r"([0-9]{3,4})[x×]([0-9]{3,4})", re.ASCII)  # ASCII digits only: no '１２８０', '+', '_'


def parse_size(size: str) -> tuple[int, int]:
    """'1920x1080' → (1920, 1080), each side 320…7680, written in ASCII digits with nothing around."""
    m = _SIZE.fullmatch(size)
    if not m or not all(320 <= int(v) <= 7680 for v in m.groups()):
        raise ExportError(f"--size {size!r}: give WIDTHxHEIGHT in pixels, each 320 to 7680 in digits 0-9, "
                          "e.g. 1920x1080")
    return int(m.group(1)), int(m.group(2))


def _app(settings):
    from attention_talk.web.app import create_app

    return create_app(settings)


def _steps(app, deck_ids: list[str]) -> int:
    store = app.state.store
    return sum(sum(len(s.steps) for s in store.decks[d].slides) for d in deck_ids)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _build_model_decks(store, deck: str | None, every: bool, warn: Callable[[str], None] = lambda _: None) -> None:
    """The app builds decks on first use: build the ones asked for now. A deck drawn from the real
    model (chapter 3) that cannot be built: an error when asked for by name; --all leaves it out and
    says so, one line per deck, as it does for a deck file that did not load."""
    from attention_talk.web.store import DeckUnavailable

    skipped: set[str] = set()
    for deck_id in list(store.pending):
        if every or deck == deck_id:
            try:
                store.ensure(deck_id)
            except DeckUnavailable as exc:
                if deck == deck_id:
                    raise ExportError(f"DECK {deck_id!r}: {_one_line(exc)}") from None
                skipped.add(deck_id)
                warn(f"export: skipped deck {deck_id!r}: {_one_line(exc)}")
    if every:
        for err in store.errors:
            if err.path.stem not in store.decks and err.path.stem not in skipped:
                warn(f"export: skipped {err.path.name}: {_one_line('; '.join(err.errors))}")


def check_out(out: Path, fmt: Format, force: bool, decks_dir: Path) -> None:
    """Refuse an out path before any work (the export functions check again as they write)."""
    check = check_file if fmt == "pdf" else check_folder
    check(out, fmt, force, protected_folders(decks_dir))


def run(settings, deck: str | None, fmt: Format, out: Path, every: bool, notes: bool, size: str,
        force: bool = False, warn: Callable[[str], None] = lambda _: None) -> str:
    """Export and return the summary line; ExportError (one line) for anything the user can fix;
    ``warn`` gets one line per deck ``--all`` leaves out."""
    start = time.perf_counter()
    dims = parse_size(size)
    if fmt == "site" and (deck is None) == (not every):
        raise ExportError("give a DECK, or --all for every deck (site only)")
    if fmt != "site" and (deck is None or every):
        raise ExportError(f"--format {fmt} exports one DECK (--all is for --format site)")
    check_out(out, fmt, force, settings.decks_dir)
    app = _app(settings)
    store = app.state.store
    if deck is not None and deck not in store.decks and deck not in store.pending:
        raise ExportError(f"DECK {deck!r}: no such deck in {settings.decks_dir} "
                          f"(known: {', '.join(store.known()) or 'none'})")
    _build_model_decks(store, deck, every, warn)
    decks = sorted(store.decks) if every else [deck]
    if not decks:
        raise ExportError(f"no deck could be exported from {settings.decks_dir}")
    summary = _export(app, fmt, out, decks, notes, dims, force)
    return dataclasses.replace(summary, seconds=time.perf_counter() - start).line()


def _export(app, fmt: Format, out: Path, decks: list[str], notes: bool, dims: tuple[int, int], force: bool):
    total = sum(len(app.state.store.decks[d].slides) for d in decks) if fmt == "site" else (
        _steps(app, decks) if fmt == "png" else 2)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as progress:  # stdout: the summary
        task = progress.add_task(f"export {fmt}", total=total)

        def tick(what: str) -> None:
            progress.update(task, advance=1, description=f"export {fmt}: {what}")

        if fmt == "site":
            from attention_talk.export.site import export_site

            return export_site(app, out, decks, tick, force=force)
        if fmt == "pdf":
            from attention_talk.export.browser import export_pdf

            return export_pdf(app, decks[0], out, notes, tick, force=force)
        from attention_talk.export.browser import export_png

        return export_png(app, decks[0], out, dims, tick, force=force)
