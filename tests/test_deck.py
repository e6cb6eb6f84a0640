"""Deck loading and validation: every shipped deck validates; each error names where it is."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from attention_talk.cli import app as cli
from attention_talk.deck import DeckError, deck_files, parse_deck
from attention_talk.frames import load_deck, load_decks
from attention_talk.paths import data_dir

SLIDES = data_dir("slides")


def minimal_deck() -> dict:
    return {
        "id": "mini", "title": "Mini", "story": {"sentence": "the old dog", "seed": 1},
        "slides": [{"id": "one", "title": "One", "notes": "n", "steps": [
            {"caption": "first", "narration": "the first step",
             "frame": {"builder": "story.map", "params": {"stage": "scores"}}},
            {"caption": "second", "narration": "the second step"},
        ]}],
    }


@pytest.mark.parametrize("path", deck_files(SLIDES), ids=lambda p: p.name)
def test_every_shipped_deck_validates(path: Path) -> None:
    deck = load_deck(path)
    assert deck.step_count >= 1
    assert path.stem == deck.id


def test_minimal_deck_parses() -> None:
    deck = parse_deck(minimal_deck(), Path("mini.yaml"))
    assert deck.step_count == 2
    assert deck.story.tokens == ["the", "old", "dog"]


def errors_of(data: dict) -> list[str]:
    """The errors of loading ``data`` as a deck file, as ``attention-talk validate`` reports them."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{data.get('id', 'bad')}.yaml"
        path.write_text(yaml.safe_dump(data, allow_unicode=True))
        with pytest.raises(DeckError) as info:
            load_deck(path)
    return info.value.errors


def test_unknown_builder_names_slide_step_and_field() -> None:
    data = minimal_deck()
    data["slides"][0]["steps"][0]["frame"]["builder"] = "story.nope"
    (err,) = errors_of(data)
    assert err.startswith("slide 1 (one) › step 1 › field frame")
    assert "unknown frame builder 'story.nope'" in err


def test_bad_builder_params_are_reported() -> None:
    data = minimal_deck()
    data["slides"][0]["steps"][0]["frame"]["params"] = {"stage": "sideways"}
    (err,) = errors_of(data)
    assert "step 1" in err and "stage" in err


def test_missing_caption_names_the_step() -> None:
    data = minimal_deck()
    del data["slides"][0]["steps"][1]["caption"]
    (err,) = errors_of(data)
    assert err == "slide 1 (one) › step 2 › field caption: Field required"


def test_duplicate_slide_ids_and_bad_template() -> None:
    data = minimal_deck()
    data["slides"].append(dict(data["slides"][0]))
    assert any("used twice" in e for e in errors_of(data))
    data = minimal_deck()
    data["slides"][0]["template"] = "carousel"
    assert any("unknown template 'carousel'" in e for e in errors_of(data))


def test_unknown_field_and_bad_id() -> None:
    data = minimal_deck()
    data["slides"][0]["steps"][0]["captoin"] = "typo"
    assert any("captoin" in e and "Extra inputs" in e for e in errors_of(data))
    data = minimal_deck()
    data["id"] = "Has Spaces"
    assert any(e.startswith("field id") for e in errors_of(data))


def test_not_a_mapping_and_unreadable_yaml(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("- just\n- a list\n")
    with pytest.raises(DeckError, match="must hold a mapping"):
        load_deck(bad)
    bad.write_text("id: [unclosed\n")
    with pytest.raises(DeckError, match="cannot read the file"):
        load_deck(bad)


def test_one_bad_deck_does_not_stop_the_others(tmp_path: Path) -> None:
    (tmp_path / "mini.yaml").write_text(yaml.safe_dump(minimal_deck()))
    broken = minimal_deck() | {"id": "broken"}
    del broken["slides"]
    (tmp_path / "broken.yaml").write_text(yaml.safe_dump(broken))
    decks, errors = load_decks(tmp_path)
    assert list(decks) == ["mini"]
    assert len(errors) == 1 and errors[0].path.name == "broken.yaml"


def test_cli_validate_prints_errors_and_exits_1(tmp_path: Path) -> None:
    data = minimal_deck()
    del data["slides"][0]["steps"][1]["narration"]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}: slide 1 (one) › step 2 › field narration: Field required" in result.output


def test_cli_validate_ok_and_schema() -> None:
    result = CliRunner().invoke(cli, ["validate", str(SLIDES)])
    assert result.exit_code == 0, result.output
    assert "attention-step-by-step.yaml: ok" in result.output
    schema = CliRunner().invoke(cli, ["schema"])
    assert schema.exit_code == 0
    assert '"slides"' in schema.output and '"caption"' in schema.output
