"""Decks anyone can write: the builder and figure listings, and docs/decks.md kept current."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from attention_talk.cli import app as cli
from attention_talk.deck import deck_files
from attention_talk.frames import BUILDERS, build_deck_frames, load_deck
from attention_talk.frames.catalog import builders, decks_markdown, figure_table
from attention_talk.paths import data_dir

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "example-deck.yaml"


def test_docs_decks_md_is_current() -> None:
    shipped = [load_deck(f) for f in deck_files(data_dir("slides"))]
    expected = decks_markdown(EXAMPLE.read_text(encoding="utf-8"), load_deck(EXAMPLE), shipped) + "\n"
    assert (ROOT / "docs" / "decks.md").read_text(encoding="utf-8") == expected, (
        "docs/decks.md is out of date: run `attention-talk decks-doc`")


def test_the_example_deck_validates_and_builds() -> None:
    deck = load_deck(EXAMPLE)
    frames = build_deck_frames(deck)
    assert [len(f) for f in frames.values()] == [1, 2, 2]
    assert deck.slides[1].steps[1].caption == "The question is a vector of 128 numbers."
    assert CliRunner().invoke(cli, ["validate", str(EXAMPLE)]).exit_code == 0


def test_builders_lists_every_builder_with_its_stages() -> None:
    infos = {b.name: b for b in builders()}
    assert set(infos) == set(BUILDERS)
    (stage,) = infos["story.map"].params[:1]
    assert stage.name == "stage" and stage.required
    assert stage.allowed == "queries, keys, cell, scores, row, mask"
    assert infos["walk.pipeline"].params[0].allowed == "integer from 1 to 9"
    out = CliRunner().invoke(cli, ["builders"]).output
    assert "story.map  [step-by-step]" in out and "    stage: queries, keys, cell, scores, row, mask" in out


def test_figures_lists_placeholders_with_values() -> None:
    table = dict(figure_table(load_deck(EXAMPLE)))
    assert table["d_model"] == "7,168" and table["focus"] == "dog" and table["n"] == "4"
    walk = dict(figure_table(load_deck(data_dir("slides") / "attention-walkthrough.yaml")))
    assert "kv_ratio" in walk  # the walkthrough chapter's own figures come with its builders
    assert "kv_ratio" not in table  # and only with them
    out = CliRunner().invoke(cli, ["figures", str(EXAMPLE)]).output
    assert "    {d_k} = 128" in out and "    {focus} = dog" in out
