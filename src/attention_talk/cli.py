"""The command line: ``attention-talk serve | validate | export | schema`` (and the catalog commands)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from attention_talk.deck import DeckError

# The deck and frames packages are imported inside the commands that use them: `serve` should not
# pay for them before the server starts (the app reads the decks after it is healthy).

app = typer.Typer(help="An animated talk on transformer attention.", no_args_is_help=True,
                  add_completion=False)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1, or ATTENTION_TALK_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8000, or ATTENTION_TALK_PORT).")] = None,
    reload: Annotated[bool, typer.Option(help="Restart when the code changes (development).")] = False,
    workers: Annotated[int | None, typer.Option(help="Server processes (ATTENTION_TALK_WORKERS).")] = None,
) -> None:
    """Serve the talk (default http://127.0.0.1:8000)."""
    import uvicorn

    settings = _settings()
    if not settings.decks_dir.is_dir():
        typer.echo(f"ATTENTION_TALK_DECKS_DIR={str(settings.decks_dir)!r}: the decks folder does not exist "
                   "(point it at a folder of deck YAML files)", err=True)
        raise typer.Exit(2)
    from attention_talk.web.server import uvicorn_options

    uvicorn.run("attention_talk.web.app:create_app", factory=True, host=host or settings.host,
                port=port or settings.port, reload=reload,
                workers=None if reload else (workers or settings.workers), **uvicorn_options(settings))


@app.command()
def validate(
    paths: Annotated[list[Path] | None,
                     typer.Argument(help="Deck files or folders (default: the slides folder).")] = None,
) -> None:
    """Check deck files (every rule the server applies, frames built too); print every error with
    its file, slide, step and field; exit 1 on any."""
    from attention_talk.deck import DeckError
    from attention_talk.frames import build_deck_frames, load_deck

    files = _deck_files(paths or [])
    if not files:
        typer.echo("no deck files found", err=True)
        raise typer.Exit(1)
    failed = 0
    for f in files:
        try:
            deck = load_deck(f)
            build_deck_frames(deck)
        except DeckError as exc:
            failed += 1
            for e in exc.errors:
                typer.echo(f"{f}: {e}", err=True)
            continue
        typer.echo(f"{f}: ok ({len(deck.slides)} slides, {deck.step_count} steps)")
    if failed:
        raise typer.Exit(1)


@app.command()
def builders() -> None:
    """List every frame builder with its parameters, allowed values and what it draws."""
    from attention_talk.frames.catalog import builders as all_builders

    for b in all_builders():
        typer.echo(f"{b.name}  [{b.chapter}]  {b.summary}")
        for p in b.params:
            typer.echo(f"    {p.name}{'' if p.required else ' (optional)'}: {p.allowed}"
                       + (f" — {p.description}" if p.description else ""))


@app.command()
def figures(
    deck: Annotated[Path | None, typer.Argument(help="A deck file (default: every deck in the decks folder).")] = None,
) -> None:
    """List every {placeholder} a deck's words may use, with its value for that deck."""
    from attention_talk.deck import DeckError
    from attention_talk.frames import load_deck
    from attention_talk.frames.catalog import figure_table

    for f in [deck] if deck else _deck_files([]):
        try:
            loaded = load_deck(f)
        except DeckError as exc:
            _fail_lines(f, exc)
        typer.echo(f"{f}:")
        for name, value in figure_table(loaded):
            typer.echo(f"    {{{name}}} = {value}")


@app.command("decks-doc")
def decks_doc(
    out: Annotated[Path, typer.Option(help="Where to write the guide.")] = Path("docs/decks.md"),
    example: Annotated[Path, typer.Option(help="The example deck it includes.")] = Path("docs/example-deck.yaml"),
) -> None:
    """Write docs/decks.md (the deck format, builders and placeholders) from the code."""
    from attention_talk.frames import load_deck
    from attention_talk.frames.catalog import decks_markdown

    shipped = [load_deck(f) for f in _deck_files([])]
    out.write_text(decks_markdown(example.read_text(encoding="utf-8"), load_deck(example), shipped) + "\n",
                   encoding="utf-8")
    typer.echo(f"wrote {out}")


def _settings():
    """The settings from the environment; a bad variable is one line on stderr and exit status 2."""
    from attention_talk.web.settings import Settings, SettingsError

    try:
        return Settings.from_env()
    except SettingsError as exc:
        for line in exc.lines:
            typer.echo(line, err=True)
        raise typer.Exit(2) from None


def _deck_files(paths: list[Path]) -> list[Path]:
    from attention_talk.deck import deck_files

    files: list[Path] = []
    for p in paths or [_settings().decks_dir]:
        if not p.exists():
            typer.echo(f"{p}: no such file or folder", err=True)
            raise typer.Exit(1)
        files.extend(deck_files(p) if p.is_dir() else [p])
    return files


def _fail_lines(path: Path, exc: DeckError) -> None:
    for e in exc.errors:
        typer.echo(f"{path}: {e}", err=True)
    raise typer.Exit(1)


@app.command("export")
def export_(
    deck: Annotated[str | None, typer.Argument(help="The deck's id (e.g. attention-step-by-step).")] = None,
    format_: Annotated[str, typer.Option("--format", help="site (a static folder), pdf or png.")] = "site",
    out: Annotated[Path, typer.Option(help="The folder (site, png) or file (pdf) to write.")] = Path("export"),
    all_: Annotated[bool, typer.Option("--all", help="Every deck, with an index page (site only).")] = False,
    notes: Annotated[bool, typer.Option(help="PDF: the notes and narration beside each page.")] = False,
    size: Annotated[str, typer.Option(help="PNG: WIDTHxHEIGHT in pixels.")] = "1920x1080",
) -> None:
    """Take the talk anywhere: a static site, a PDF (one page per step) or one PNG per step."""
    from attention_talk.export.command import run
    from attention_talk.export.local import ExportError

    if format_ not in ("site", "pdf", "png"):
        typer.echo(f"--format {format_!r}: choose site, pdf or png", err=True)
        raise typer.Exit(2)
    try:
        typer.echo(run(_settings(), deck, format_, out, all_, notes, size))
    except ExportError as exc:
        typer.echo(f"export: {exc}", err=True)
        raise typer.Exit(1) from None


@app.command()
def schema() -> None:
    """Print the JSON Schema of a deck file."""
    from attention_talk.deck import json_schema

    typer.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))


if __name__ == "__main__":  # pragma: no cover
    app()
