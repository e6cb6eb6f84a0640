"""Every key binding is documented: each row of the key table appears in the README's Keys table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attention_talk.web.keys import FOLLOWER_KEYS, KEY_TABLE, PRESENTER_KEYS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def readme_key_tokens() -> set[str]:
    """The words of the first column of the README's "## Keys" table."""
    section = README.split("## Keys", 1)[1].split("\n## ", 1)[0]
    cells = re.findall(r"^\| ([^|]+) \|", section, flags=re.M)
    return {tok for cell in cells for tok in re.split(r"[\s/,]+", cell) if tok}


@pytest.mark.parametrize("row", KEY_TABLE, ids=[k["action"] for k in KEY_TABLE])
def test_every_key_is_in_the_readme(row) -> None:
    documented = readme_key_tokens()
    missing = [tok for tok in row["label"].split() if tok not in documented]
    assert not missing, f"README's Keys table lacks {missing} ({row['action']})"
    assert row["keys"] and row["description"]


def test_key_table_is_consistent() -> None:
    seen: dict[str, str] = {}
    for row in KEY_TABLE:
        for key in row["keys"]:
            assert key not in seen, f"{key!r} is bound to both {seen[key]} and {row['action']}"
            seen[key] = row["action"]
            assert len(key) > 1 or key == key.lower(), f"{key!r}: letters are lower-case"
    every = {k["action"] for k in KEY_TABLE}
    assert {k["action"] for k in PRESENTER_KEYS} <= every and {k["action"] for k in FOLLOWER_KEYS} <= every
