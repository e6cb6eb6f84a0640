"""Where the talk's data folders live: beside the package in a wheel, at the top of a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Folder ``name`` (slides, templates or static) shipped in the wheel, else in the checkout."""
    installed = _PACKAGE / "_data" / name
    if installed.is_dir():
        return installed
    return _PACKAGE.parents[1] / name
