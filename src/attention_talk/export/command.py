"""What ``attention-talk export`` does once its options are read: check them, build the app once,
run the export with a progress bar (rich) and end with one summary line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from attention_talk.export.local import ExportError

Format = Literal["site", "pdf", "png"]


def parse_size(size: str) -> tuple[int, int]:
    """'1920x1080' → (1920, 1080), each side 320…7680."""
    m = re.fullmatch(r"(\d{3,4})[x×](\d{3,4})", size.strip())
    if not m or not all(320 <= int(v) <= 7680 for v in m.groups()):
        raise ExportError(f"--size {size!r}: give WIDTHxHEIGHT in pixels, each 320 to 7680, e.g. 1920x1080")
    return int(m.group(1)), int(m.group(2))


def _app(settings):
    from attention_talk.web.app import create_app

    return create_app(settings)


def _steps(app, deck_ids: list[str]) -> int:
    store = app.state.store
    return sum(sum(len(s.steps) for s in store.decks[d].slides) for d in deck_ids)


def _build_model_decks(store, deck: str | None, every: bool) -> None:
    """The app builds decks on first use: build the ones asked for now. A deck drawn from the real
    model (chapter 3) that cannot be built: an error when asked for by name; --all leaves it out."""
    from attention_talk.web.store import DeckUnavailable

    for deck_id in list(store.pending):
        if every or deck == deck_id:
            try:
                store.ensure(deck_id)
            except DeckUnavailable as exc:
                if deck == deck_id:
                    raise ExportError(f"DECK {deck_id!r}: {exc}") from None


def run(settings, deck: str | None, fmt: Format, out: Path, every: bool, notes: bool, size: str) -> str:
    """Export and return the summary line; ExportError (one line) for anything the user can fix."""
    dims = parse_size(size)
    if fmt == "site" and (deck is None) == (not every):
        raise ExportError("give a DECK, or --all for every deck (site only)")
    if fmt != "site" and (deck is None or every):
        raise ExportError(f"--format {fmt} exports one DECK (--all is for --format site)")
    app = _app(settings)
    store = app.state.store
    if deck is not None and deck not in store.decks and deck not in store.pending:
        raise ExportError(f"DECK {deck!r}: no such deck (known: {', '.join(sorted([*store.decks, *store.pending]))})")
    _build_model_decks(store, deck, every)
    known = sorted(store.decks)
    decks = known if every else [deck]
    total = sum(len(app.state.store.decks[d].slides) for d in decks) if fmt == "site" else (
        _steps(app, decks) if fmt == "png" else 2)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=True) as progress:
        task = progress.add_task(f"export {fmt}", total=total)

        def tick(what: str) -> None:
            progress.update(task, advance=1, description=f"export {fmt}: {what}")

        if fmt == "site":
            from attention_talk.export.site import export_site

            summary = export_site(app, out, decks, tick)
        elif fmt == "pdf":
            from attention_talk.export.browser import export_pdf

            summary = export_pdf(app, decks[0], out, notes, tick)
        else:
            from attention_talk.export.browser import export_png

            summary = export_png(app, decks[0], out, dims, tick)
    return summary.line()
