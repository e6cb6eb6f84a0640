"""Every deck rule, as `attention-talk validate` reports it: one line per problem naming the file, the
slide, the step and the field; exit status 1; never a traceback. One row per class of mistake."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from attention_talk import mathml
from attention_talk.cli import app as cli

GOOD = {
    "id": "mini", "title": "Mini", "preset": "deepseek-v3.2",
    "story": {"sentence": "the old dog sleeps", "seed": 1, "focus": "dog"},
    "slides": [{"id": "one", "title": "One", "notes": "Speaker notes.", "equations": {"eq": r"a = \frac{b}{c}"},
                "steps": [{"caption": "first", "narration": "the first step",
                           "frame": {"builder": "story.map", "params": {"stage": "scores"}},
                           "words": {"notes": {"about": "{tokens} queries meet {tokens} keys in {model}."}}}]}],
}


def mutate(path: str, value):
    """A copy of GOOD with the dotted ``path`` set to ``value``."""
    data = copy.deepcopy(GOOD)
    *head, last = path.split(".")
    node = data
    for key in head:
        node = node[int(key)] if key.isdigit() else node[key]
    node[int(last) if last.isdigit() else last] = value
    return data


CASES = [
    ("unknown preset", mutate("preset", "gpt-9"), "field preset: Value error, unknown preset 'gpt-9'"),
    ("preset the chapter cannot draw", mutate("preset", "vaswani-base"),
     "field preset: the step-by-step chapter's builders draw their matrices at the sizes of deepseek-v3.2"),
    ("focus not in the sentence", mutate("story.focus", "cat"),
     "field story: Value error, focus 'cat' is not a word of the sentence"),
    ("unsafe equation", mutate("slides.0.equations.eq", r"x \text{<meta http-equiv=refresh content=0;url=/>}"),
     "slide 1 (one) › field equations: Value error, equation 'eq': contains markup that is not MathML (<meta>)"),
    ("script in an equation", mutate("slides.0.equations.eq", r"\text{<script>alert(1)</script>}"),
     "contains markup that is not MathML (<script>)"),
    ("event handler in an equation", mutate("slides.0.equations.eq", r"\text{<img src=x onerror=alert(1)>}"),
     "contains markup that is not MathML (<img>"),
    ("LaTeX that does not parse", mutate("slides.0.equations.eq", r"\frac{"), "equation 'eq': not valid LaTeX"),
    ("typed number", mutate("slides.0.steps.0.caption", "all 7168 numbers"),
     "slide 1 (one) › step 1 › field caption: the number '7168' is typed into the words"),
    ("unknown builder", mutate("slides.0.steps.0.frame.builder", "story.nope"),
     "slide 1 (one) › step 1 › field frame.builder: unknown frame builder 'story.nope'"),
    ("bad builder parameter", mutate("slides.0.steps.0.frame.params", {"stage": "sideways"}),
     "slide 1 (one) › step 1 › field frame.params.stage: Input should be"),
    ("unknown builder parameter", mutate("slides.0.steps.0.frame.params", {"stage": "scores", "colour": "red"}),
     "field frame.params.colour: Extra inputs are not permitted"),
    ("unknown placeholder", mutate("slides.0.steps.0.caption", "{nope}"), "unknown figure {nope}"),
    # a note's words: the id its builder draws, its text there, no typed number, known placeholders
    ("unknown note id", mutate("slides.0.steps.0.words.notes", {"about": "a", "abuot": "b"}),
     "slide 1 (one) › step 1 › field words.notes.abuot: unknown note id 'abuot'; its builder draws: about, dot"),
    ("note id on a slide", mutate("slides.0.words", {"notes": {"dot": "a"}}),
     "slide 1 (one) › field words.notes.dot: no step of this slide draws the note 'dot'"),
    ("note this stage does not draw", mutate("slides.0.steps.0.words.notes", {"about": "a", "dot": "b"}),
     "slide 1 (one) › step 1 › field words.notes.dot: this step's builder does not draw the note 'dot' here"),
    ("card id of a builder without cards", mutate("slides.0.steps.0.words.cards", {"x": {"title": "t"}}),
     "slide 1 (one) › step 1 › field words.cards.x: unknown card id 'x'; its builder draws no cards"),
    ("missing note text", mutate("slides.0.steps.0.words", None),
     "slide 1 (one) › step 1 › field words.notes.about: no text for the note 'about' this step's builder draws"),
    ("typed number in a note", mutate("slides.0.steps.0.words.notes.about", "all 7168 numbers"),
     "slide 1 (one) › step 1 › field words.notes.about: the number '7168' is typed into the words"),
    ("unknown placeholder in a note", mutate("slides.0.steps.0.words.notes.about", "{tokens} and {nope}"),
     "slide 1 (one) › step 1 › field words.notes.about: unknown figure {nope}; this text's own figures: tokens"),
    ("formatted placeholder in a note", mutate("slides.0.steps.0.words.notes.about", "{tokens:>5}"),
     "slide 1 (one) › step 1 › field words.notes: Value error, note 'about': placeholder {tokens} must be a plain"),
    ("typed number in a card", mutate("slides.0.words", {"cards": {"x": {"title": "t", "body": "1234 cells"}}}),
     "slide 1 (one) › field words.cards.x.body: the number '1234' is typed into the words"),
]


@pytest.mark.parametrize(("name", "data", "expected"), CASES, ids=[c[0] for c in CASES])
def test_validate_reports_one_line_and_exits_1(tmp_path: Path, name: str, data: dict, expected: str) -> None:
    path = tmp_path / "mini.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)
    lines = result.output.strip().splitlines()
    assert all(line.startswith(f"{path}: ") for line in lines), lines
    assert any(expected in line for line in lines), lines


def test_the_good_deck_validates(tmp_path: Path) -> None:
    path = tmp_path / "mini.yaml"
    path.write_text(yaml.safe_dump(GOOD, allow_unicode=True), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 0, result.output


def test_id_must_match_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "other-name.yaml"
    path.write_text(yaml.safe_dump(GOOD), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}: field id: 'mini' must match the file name 'other-name.yaml'" in result.output


def test_yml_files_are_decks_too(tmp_path: Path) -> None:
    (tmp_path / "mini.yml").write_text(yaml.safe_dump(GOOD), encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", str(tmp_path)])
    assert result.exit_code == 0 and "mini.yml: ok (1 slides, 1 steps)" in result.output


@pytest.mark.parametrize("payload", ["<meta http-equiv=refresh content=0>", "<script>alert(1)</script>",
                                     "<img src=x onerror=alert(1)>", "<a href=javascript:alert(1)>x</a>"])
def test_rendered_mathml_never_carries_html(payload: str) -> None:
    """Even if a deck skipped validation, what reaches the page is MathML only."""
    html = mathml.render(rf"x \text{{{payload}}}")
    alt = re.search(r'^<math alttext="([^"]*)"', html).group(1)  # the words of the equation, escaped
    assert "<" not in alt and ">" not in alt
    html = html.replace(alt, "")
    for bad in ("<meta", "<script", "<img", "<a ", "onerror", "javascript:"):
        assert bad not in html
    assert html.startswith("<math") and "<mi>x</mi>" in html
