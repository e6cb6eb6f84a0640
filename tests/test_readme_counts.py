"""The README's step counts are the decks' own: every "(`/talk/<deck>`, N steps)" it states is the
number of steps that deck has (issue 31: the counts had gone stale)."""

from __future__ import annotations

import re
from pathlib import Path

from attention_talk.deck import read_deck

ROOT = Path(__file__).resolve().parents[1]
CLAIM = re.compile(r"\(`/talk/([a-z0-9-]+)`, (\d+) steps\)")


def test_every_step_count_in_the_readme_is_the_decks() -> None:
    claims = CLAIM.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {deck for deck, _ in claims} == {p.stem for p in (ROOT / "slides").glob("*.yaml")}
    for deck, steps in claims:
        assert int(steps) == read_deck(ROOT / "slides" / f"{deck}.yaml").step_count, deck
