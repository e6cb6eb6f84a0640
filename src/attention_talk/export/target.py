"""Where an export may write, and how it writes there without harming anything else.

An export replaces only what an earlier export of the same format wrote, unless ``--force``:

- a PDF is recognised by its header and its ``/Creator``: the exporter's Chromium runs with the user
  agent ``EXPORT_AGENT``, which Chromium writes as the PDF's Creator (``is_pdf_export``);
- a site or PNG folder holds a marker file, ``MARKER``, naming its format, written by the exporter
  before anything else (so a half-done export is still recognised as one).

Whatever ``--force`` says, a symlink is never followed: not the out path, not a folder or file
inside an out folder. Every file is written to a temporary name in its folder (``O_EXCL``,
``O_NOFOLLOW``) and renamed over the old one, which replaces a link itself, never its target; the
folders inside are opened one by one with ``O_NOFOLLOW``. And no export goes into (or around) the
decks folder, the templates or the static files: they are packaged into the wheel.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import orjson

from attention_talk.export.local import ExportError
from attention_talk.paths import data_dir

MARKER = ".attention-talk-export"
EXPORT_AGENT = "attention-talk export (HeadlessChrome)"
_PDF_CREATOR = b"/Creator (" + EXPORT_AGENT.replace("(", r"\(").replace(")", r"\)").encode()
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
FORCE = "; --force replaces it"


def protected_folders(decks_dir: Path | None = None) -> list[Path]:
    """The folders no export may write into, be inside, or hold: the packaged data and the decks."""
    folders = [data_dir("slides"), data_dir("templates"), data_dir("static")]
    return folders + ([decks_dir] if decks_dir is not None else [])


def _refuse_protected(out: Path, protected: Iterable[Path]) -> None:
    """No export into the talk's own folders, and none whose path cannot hold a folder or file."""
    for parent in out.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ExportError(f"--out {out}: {parent} is a file, not a folder")
            break
    where = out.resolve()
    for folder in protected:
        folder = folder.resolve()
        if where == folder or where.is_relative_to(folder) or folder.is_relative_to(where):
            raise ExportError(f"--out {out}: the export would write into {folder}, whose files are the "
                              "talk's own (decks, templates or static files); choose a folder outside it")


def is_pdf_export(path: Path) -> bool:
    """True when ``path`` is a regular file that an earlier ``--format pdf`` wrote."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as f:
        head = f.read(4096)
    return head.startswith(b"%PDF-") and _PDF_CREATOR in head


def folder_format(path: Path) -> str | None:
    """The format ("site", "png") an earlier export recorded in ``path``'s marker, else None."""
    try:
        fd = os.open(path / MARKER, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        try:
            recorded = orjson.loads(f.read(4096))
        except orjson.JSONDecodeError:
            return None
    return recorded.get("format") if isinstance(recorded, dict) else None


def check_file(out: Path, fmt: str, force: bool, protected: Iterable[Path]) -> None:
    """May a single-file export (PDF) write ``out``? ExportError (one line) says why not."""
    _refuse_protected(out, protected)
    if out.is_symlink():
        raise ExportError(f"--out {out} is a symbolic link; an export never writes through one (give the real path)")
    if not out.exists():
        return
    if out.is_dir():
        raise ExportError(f"--out {out} is a folder; --format {fmt} writes one file (e.g. --out talk.{fmt})")
    if not out.is_file():
        raise ExportError(f"--out {out} is not a regular file; choose another path")
    if not force and not is_pdf_export(out):
        raise ExportError(f"--out {out} exists and is not an earlier {fmt.upper()} export{FORCE}")


def check_folder(out: Path, fmt: str, force: bool, protected: Iterable[Path]) -> None:
    """May a folder export (site, PNG) write into ``out``? ExportError (one line) says why not."""
    _refuse_protected(out, protected)
    if out.is_symlink():
        raise ExportError(f"--out {out} is a symbolic link; an export never writes through one (give the real path)")
    if not out.exists():
        return
    if not out.is_dir():
        raise ExportError(f"--out {out} is a file; --format {fmt} writes a folder")
    if force or not any(out.iterdir()):
        return
    earlier = folder_format(out)
    if earlier is None:
        raise ExportError(f"--out {out} is not empty and holds no earlier export; choose an empty folder{FORCE}")
    if earlier != fmt:
        raise ExportError(f"--out {out} holds an earlier {earlier} export, not {fmt}{FORCE}")


def replace_in(folder_fd: int, name: str, data: bytes) -> None:
    """Write ``name`` in the open folder atomically: a new file beside it, renamed over it."""
    temp = f".{name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder_fd)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=folder_fd)
        raise


def write_file(out: Path, data: bytes) -> None:
    """``out`` replaced by ``data`` atomically; a symlink at ``out`` is replaced, never followed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(out.parent, os.O_RDONLY | _DIRECTORY)
    try:
        replace_in(folder, out.name, data)
    except IsADirectoryError:
        raise ExportError(f"--out {out} is a folder; give a file name") from None
    finally:
        os.close(folder)


@dataclass
class Folder:
    """An out folder, opened once: files written under it, never through a symlink."""

    root: Path
    fd: int
    files: int = 0
    bytes: int = 0

    @classmethod
    def open(cls, out: Path, fmt: str, force: bool, protected: Iterable[Path]) -> Folder:
        """Check ``out`` (``check_folder``), create it, and mark it as an export of ``fmt``."""
        check_folder(out, fmt, force, protected)
        out.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(out, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
        except OSError:
            raise ExportError(f"--out {out} is a symbolic link; an export never writes through one") from None
        folder = cls(out, fd)
        folder.write(MARKER, orjson.dumps({"format": fmt, "by": "attention-talk export"}))
        return folder

    def write(self, rel: str, data: bytes | str) -> None:
        """Write ``rel`` (a relative path with / separators) under the root."""
        raw = data.encode() if isinstance(data, str) else data
        *parents, name = _parts(rel)
        fd = self._subfolder(parents, rel)
        try:
            replace_in(fd, name, raw)
        except IsADirectoryError:
            raise ExportError(f"{self.root / rel} is a folder; the export needs to write a file there") from None
        except OSError as exc:  # named by its whole path (the handler prints the file and the reason)
            raise OSError(exc.errno, exc.strerror, str(self.root / rel)) from None
        finally:
            os.close(fd)
        self.files += 1
        self.bytes += len(raw)

    def _subfolder(self, parents: list[str], rel: str) -> int:
        fd = os.dup(self.fd)
        for name in parents:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=fd)
            try:
                inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError:
                os.close(fd)
                raise ExportError(f"{self.root / rel}: {name} on the way is a symbolic link or a file, not a "
                                  "folder; an export never writes through one") from None
            os.close(fd)
            fd = inner
        return fd

    def close(self) -> None:
        os.close(self.fd)


def _parts(rel: str) -> list[str]:
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or any(p in ("..", ".") for p in parts):
        raise ValueError(f"not a path inside the export: {rel!r}")
    return list(parts)
