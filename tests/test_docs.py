"""The README documents every setting (with its default and what it allows), the Docker image's
variables, and its Python snippets run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_talk.web.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def readme_settings() -> dict[str, str]:
    """``ATTENTION_TALK_X`` → its default, from the README's settings table."""
    rows = re.findall(r"^\| `(ATTENTION_TALK_[A-Z_]+)` \| ([^|]+) \|", README, flags=re.M)
    return {name: default.strip() for name, default in rows}


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_readme(name) -> None:
    field = Settings.model_fields[name]
    variable = f"ATTENTION_TALK_{name.upper()}"
    assert variable in readme_settings(), f"{variable} is missing from the README's settings table"
    assert field.description, f"Settings.{name} has no description"
    default = field.get_default(call_default_factory=False)
    if default is not None and not callable(default) and field.default_factory is None:
        shown = readme_settings()[variable].strip("`")
        assert shown == (str(default).lower() if isinstance(default, bool) else str(default)), variable


def readme_allowed() -> dict[str, str]:
    """``ATTENTION_TALK_X`` → its "Allowed" cell (the table's third column)."""
    rows = re.findall(r"^\| `(ATTENTION_TALK_[A-Z_]+)` \| [^|]+ \| ([^|]+) \|", README, flags=re.M)
    return {name: allowed.strip() for name, allowed in rows}


def _number(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


SIGNS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_settings_constraint_is_in_the_readme(name) -> None:
    """Each bound a setting has (≥, >, ≤, <) is written in its row's Allowed cell, e.g. ≥ 1,024."""
    variable = f"ATTENTION_TALK_{name.upper()}"
    cell = readme_allowed().get(variable, "")
    assert cell, f"{variable}: the README's settings table says nothing under Allowed"
    for meta in Settings.model_fields[name].metadata:
        for attr, sign in SIGNS.items():
            if getattr(meta, attr, None) is not None:
                want = f"{sign} {_number(getattr(meta, attr))}"
                assert want in cell, f"{variable}: the README's Allowed cell {cell!r} does not say {want!r}"


def test_readme_lists_no_setting_that_does_not_exist() -> None:
    known = {f"ATTENTION_TALK_{n.upper()}" for n in Settings.model_fields}
    assert set(readme_settings()) <= known


def test_the_docker_image_uses_only_documented_variables() -> None:
    used = set(re.findall(r"ATTENTION_TALK_[A-Z_]+", (ROOT / "Dockerfile").read_text()))
    assert used and used <= set(readme_settings())
    assert "docker build" in README and "docker run" in README
