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
             "frame": {"builder": "story.map", "params": {"stage": "scores"}},
             "words": {"notes": {"about": "{tokens} queries, {tokens} keys."}}},
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


# ---- bounded, in-folder reads ----------------------------------------------------------------


def test_a_deck_over_the_size_limit_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    """A 50 MB junk file (sparse: no disk) is refused by its size before a byte is parsed; the other
    decks still load, and the refusal is one line naming the size and the limit."""
    import attention_talk.deck as deck_module

    (tmp_path / "mini.yaml").write_text(yaml.safe_dump(minimal_deck()))
    with open(tmp_path / "junk.yaml", "wb") as f:
        f.truncate(50 * 2**20)
    edge = tmp_path / "edge.yaml"
    edge.write_bytes(b"#" * (deck_module.MAX_DECK_BYTES + 1))
    parsed: list[int] = []
    real_load = yaml.load
    monkeypatch.setattr(yaml, "load", lambda text, **kw: (parsed.append(len(text)), real_load(text, **kw))[1])
    decks, errors = load_decks(tmp_path)
    assert list(decks) == ["mini"] and parsed == [len((tmp_path / "mini.yaml").read_text())]
    reasons = {e.path.name: e.errors for e in errors}
    assert reasons == {
        "junk.yaml": ["file: 52,428,800 bytes, more than the limit of 1,048,576 for a deck; not read"],
        "edge.yaml": ["file: 1,048,577 bytes, more than the limit of 1,048,576 for a deck; not read"]}


def test_a_deck_that_grows_after_its_stat_is_refused(tmp_path: Path, monkeypatch) -> None:
    """The size is checked with stat, then at most the limit is read: a file that is larger than its
    stat said (it grew meanwhile) is refused too; one of exactly the limit is read."""
    import os

    import attention_talk.deck as deck_module

    path = tmp_path / "x.yaml"
    path.write_bytes(b"id: x\n" * 20)  # 120 bytes
    assert deck_module.read_deck_text(path, max_bytes=120) == "id: x\n" * 20
    real_fstat = os.fstat
    monkeypatch.setattr(deck_module.os, "fstat", lambda fd: os.stat_result(
        (*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))  # st_size 10, as before it grew
    with pytest.raises(DeckError, match="file: more than the limit of 100 bytes for a deck; not read"):
        deck_module.read_deck_text(path, max_bytes=100)


def test_a_symlink_out_of_the_decks_folder_is_not_served(tmp_path: Path) -> None:
    """A link to a valid deck outside the folder is refused (it could name any file the server may
    read); a link that stays inside is read as usual; the other decks still load and are served."""
    from attention_talk.web.store import Store

    folder, outside = tmp_path / "decks", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "mini.yaml").write_text(yaml.safe_dump(minimal_deck()))
    (outside / "other.yaml").write_text(yaml.safe_dump(minimal_deck() | {"id": "other"}))
    (folder / "other.yaml").symlink_to(outside / "other.yaml")
    (folder / "sub").mkdir()
    (folder / "sub" / "inner.yaml").write_text(yaml.safe_dump(minimal_deck() | {"id": "inner"}))
    (folder / "inner.yaml").symlink_to(folder / "sub" / "inner.yaml")  # resolves inside the folder
    decks, errors = load_decks(folder)
    assert sorted(decks) == ["inner", "mini"]
    assert [(e.path.name, len(e.errors)) for e in errors] == [("other.yaml", 1)]
    assert errors[0].errors[0].startswith(f"file: resolves outside its folder {str(folder)!r}")
    store = Store.load(folder)
    assert [row["id"] for row in store.index()] == ["inner", "mini"] and store.find("other") is None
    result = CliRunner().invoke(cli, ["validate", str(folder)])
    assert result.exit_code == 1
    assert f"{folder / 'other.yaml'}: file: resolves outside its folder" in result.output


def test_a_fifo_or_a_device_is_refused_without_blocking(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(DeckError, match="file: not a regular file"):
        load_deck(fifo)
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    with pytest.raises(DeckError, match="resolves outside its folder"):
        load_deck(tmp_path / "zero.yaml")


def test_a_yaml_error_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_text("id: [unclosed\ntitle: x\n")
    with pytest.raises(DeckError) as exc:
        load_deck(bad)
    assert len(exc.value.errors) == 1 and "\n" not in exc.value.errors[0]
    assert exc.value.errors[0].startswith("cannot read the file: while parsing")
