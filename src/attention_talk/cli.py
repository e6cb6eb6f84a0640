"""The command line: ``attention-talk serve | validate | export | schema | model-cache`` (and the catalog commands).

Exit status: 0 done; 1 a deck has problems (``validate``, ``figures``: one line each, with its file,
slide, step and field); 2 the command could not do what was asked (a bad option or setting, a
missing file, an export refused): one line on stderr, never a traceback. ``OneLineErrors`` is the
one place that turns every error of every command into that line.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

if TYPE_CHECKING:
    from attention_talk.deck import DeckError

# The deck and frames packages are imported inside the commands that use them: `serve` should not
# pay for them before the server starts (the app reads the decks after it is healthy).

PROG = "attention-talk"
DECK_HELP = "A deck: its id (e.g. attention-walkthrough, a file in the decks folder) or a deck file's path."


class CliError(Exception):
    """What the user asked cannot be done: one line, exit status 2."""


class OneLineErrors(TyperGroup):
    """Every command runs inside this ``main``: whatever goes wrong becomes one line on stderr and
    exit status 2 (a deck's own problems keep status 1, one line each), never a traceback."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        args = list(sys.argv[1:] if args is None else args)
        try:
            code = super().main(args, PROG, complete_var, standalone_mode=False, **extra)  # one name in messages
        except Exception as exc:  # the one handler: every command, every error
            code = _report(exc, self._command(args))
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)

    def _command(self, args: list[str]) -> str:
        name = next((a for a in args if a in self.commands), None)
        return f"{PROG} {name}" if name else PROG


def _report(exc: Exception, command: str) -> int:
    """Print ``exc`` as the line(s) the user reads; the exit status."""
    from attention_talk.deck import DeckError
    from attention_talk.export.local import ExportError
    from attention_talk.web.settings import SettingsError

    if type(exc).__name__ == "NoArgsIsHelpError":  # no command given: the help, as click prints it
        shown = exc.ctx.get_help()  # typer's rich help prints itself and returns ""
        if shown:
            typer.echo(shown)
        return 2
    if isinstance(exc, typer.Abort):
        _err(f"{command}: aborted")
        return 2
    if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):  # click's (typer's) usage errors
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else command
        _err(f"{where}: {exc.format_message()} (see {where} --help)")
        return 2
    if isinstance(exc, SettingsError):
        for line in exc.lines:
            _err(line)
        return 2
    if isinstance(exc, DeckError):
        for e in exc.errors:
            _err(f"{exc.path}: {e}")
        return 1
    if isinstance(exc, CliError):
        _err(str(exc))
    elif isinstance(exc, ExportError):
        _err(f"export: {exc}")
    elif isinstance(exc, OSError):
        _err(f"{command}: {_os_error(exc)}")
    else:
        _err(f"{command}: unexpected {type(exc).__name__}: {exc}")
    return 2


def _os_error(exc: OSError) -> str:
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    reason = exc.strerror or str(exc)
    return f"{' → '.join(names)}: {reason}" if names else reason


def _err(text: str) -> None:
    typer.echo(" ".join(str(text).split()), err=True)


app = typer.Typer(cls=OneLineErrors, help="An animated talk on transformer attention.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface (default 127.0.0.1, or ATTENTION_TALK_HOST).")] = None,
    port: Annotated[int | None, typer.Option(min=1, max=65535,
                                             help="Port (default 8000, or ATTENTION_TALK_PORT).")] = None,
    reload: Annotated[bool, typer.Option(help="Restart when the code changes (development).")] = False,
    workers: Annotated[int | None, typer.Option(min=1, max=64,
                                                help="Server processes (ATTENTION_TALK_WORKERS).")] = None,
) -> None:
    """Serve the talk (default http://127.0.0.1:8000)."""
    import uvicorn

    settings = _settings()
    if not settings.decks_dir.is_dir():
        raise CliError(f"ATTENTION_TALK_DECKS_DIR={str(settings.decks_dir)!r}: the decks folder does not exist "
                       "(point it at a folder of deck YAML files)")
    from attention_talk.web.server import uvicorn_options

    _refuse_a_taken_port(host or settings.host, port or settings.port)
    uvicorn.run("attention_talk.web.app:create_app", factory=True, host=host or settings.host,
                port=port or settings.port, reload=reload,
                workers=None if reload else (workers or settings.workers), **uvicorn_options(settings))


def _refuse_a_taken_port(host: str, port: int) -> None:
    """One line, before uvicorn logs its start-up and fails: the address cannot be listened on."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CliError(f"{PROG} serve: cannot listen on {host}:{port}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as exc:
            raise CliError(f"{PROG} serve: cannot listen on {host}:{port}: {exc.strerror}") from None


@app.command()
def validate(
    decks: Annotated[list[str] | None,
                     typer.Argument(help="Deck ids, deck files or folders (default: the decks folder).")] = None,
) -> None:
    """Check decks (every rule the server applies, frames built too); print every error with
    its file, slide, step and field; exit 1 on any."""
    from attention_talk.deck import DeckError
    from attention_talk.frames import build_deck_frames, load_deck, needs_model

    files = _deck_files(decks or [])
    if not files:
        raise CliError("no deck files found")
    failed = 0
    for f in files:
        try:
            deck = load_deck(f)
            build_deck_frames(deck, model_path=_settings().model_path if needs_model(deck) else None)
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
    deck: Annotated[str | None, typer.Argument(help=DECK_HELP + " Default: every deck in the decks folder.")] = None,
) -> None:
    """List every {placeholder} a deck's words may use, with its value for that deck."""
    from attention_talk.deck import DeckError
    from attention_talk.frames import load_deck
    from attention_talk.frames.catalog import figure_table

    for f in [deck_file(deck)] if deck else _deck_files([]):
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


@app.command("model-cache")
def model_cache() -> None:
    """Build the shared float32 copy of the model's weights now (ATTENTION_TALK_MODEL_CACHE_DIR), so
    the first worker to load the model maps it at once; print where it is."""
    from attention_talk.model import loader

    settings = _settings()
    if settings.model_cache_dir is None:
        raise CliError("ATTENTION_TALK_MODEL_CACHE_DIR is 'none': there is no shared copy to build")
    ld = loader(settings.model_path, settings.model_cache_dir)
    ld.model()  # ModelMissing: one line with the install hint (OneLineErrors)
    if ld.cache_file is None:
        raise CliError(f"the weights cache could not be written in {str(settings.model_cache_dir)!r} (see the log)")
    size = ld.cache_file.stat().st_size / 2**20
    typer.echo(f"{ld.cache_file} ({size:.0f} MB, loaded in {ld.seconds.get('total', 0):.1f} s)")


def _settings():
    """The settings from the environment; a bad variable is one line on stderr (SettingsError, shown
    by OneLineErrors) and exit status 2."""
    from attention_talk.web.settings import Settings

    return Settings.from_env()


_ID = re.compile(r"[a-z0-9][a-z0-9-]*")


def deck_file(ref: str, decks_dir: Path | None = None) -> Path:
    """The deck file ``ref`` names: a path to a file, or a deck id (its file in the decks folder).
    Every command that names a deck reads it through here."""
    from attention_talk.deck import DECK_SUFFIXES, deck_files

    path = Path(ref)
    if path.is_file():
        return path
    if path.is_dir():
        raise CliError(f"{ref}: a folder, not a deck; give a deck id or a deck file")
    folder = decks_dir or _settings().decks_dir
    if _ID.fullmatch(ref):
        for suffix in DECK_SUFFIXES:
            if (folder / f"{ref}{suffix}").is_file():
                return folder / f"{ref}{suffix}"
    known = ", ".join(p.stem for p in deck_files(folder)) if folder.is_dir() else "none"
    raise CliError(f"{ref}: no such deck file, and no deck with that id in {folder} (known: {known or 'none'})")


def _deck_files(refs: list[str]) -> list[Path]:
    """The deck files named by ``refs`` (ids, files or folders; default: the decks folder)."""
    from attention_talk.deck import deck_files

    if not refs:
        folder = _settings().decks_dir
        if not folder.is_dir():
            raise CliError(f"{folder}: no such folder (the decks folder, ATTENTION_TALK_DECKS_DIR)")
        return deck_files(folder)
    files: list[Path] = []
    for ref in refs:
        files.extend(deck_files(Path(ref)) if Path(ref).is_dir() else [deck_file(ref)])
    return files


def _fail_lines(path: Path, exc: DeckError) -> None:
    for e in exc.errors:
        typer.echo(f"{path}: {e}", err=True)
    raise typer.Exit(1)


@app.command("export")
def export_(
    deck: Annotated[str | None, typer.Argument(help=DECK_HELP)] = None,
    format_: Annotated[str, typer.Option("--format", help="site (a static folder), pdf or png.")] = "site",
    out: Annotated[Path, typer.Option(help="The folder (site, png) or file (pdf) to write: new, empty, or an "
                                           "earlier export of the same format.")] = Path("export"),
    all_: Annotated[bool, typer.Option("--all", help="Every deck, with an index page (site only).")] = False,
    notes: Annotated[bool, typer.Option(help="PDF: the notes and narration beside each page.")] = False,
    size: Annotated[str, typer.Option(help="PNG: WIDTHxHEIGHT in pixels.")] = "1920x1080",
    force: Annotated[bool, typer.Option(help="Replace a file or fill a folder that is not an earlier export "
                                             "(never through a symbolic link).")] = False,
) -> None:
    """Take the talk anywhere: a static site, a PDF (one page per step) or one PNG per step."""
    from attention_talk.export.command import run

    if format_ not in ("site", "pdf", "png"):
        raise CliError(f"--format {format_!r}: choose site, pdf or png")
    settings = _settings()
    deck_id = deck
    if deck is not None and ("/" in deck or Path(deck).suffix or not _ID.fullmatch(deck)):
        path = deck_file(deck, settings.decks_dir)  # a deck file: export it from its own folder
        settings = settings.model_copy(update={"decks_dir": path.parent})
        deck_id = path.stem
    typer.echo(run(settings, deck_id, format_, out, all_, notes, size, force,
                   warn=lambda line: typer.echo(line, err=True)))


@app.command()
def schema() -> None:
    """Print the JSON Schema of a deck file."""
    from attention_talk.deck import json_schema

    typer.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))


if __name__ == "__main__":  # pragma: no cover
    app()
