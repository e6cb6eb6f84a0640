"""A step's `lab:` link: validated by deck.py (naming slide, step and field), written as the lab's URL
contract (/lab?text=…&source=model&layer=L&head=H), rendered with its step; the last slide of
chapters 1 and 2 and the index page link to the lab."""

from __future__ import annotations

import html
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from attention_talk.deck import DeckError, LabLink, parse_deck
from attention_talk.frames import load_deck
from attention_talk.paths import data_dir
from test_deck import minimal_deck


def with_lab(lab: dict) -> dict:
    deck = minimal_deck()
    deck["slides"][0]["steps"][1]["lab"] = lab
    return deck


def test_the_link_is_the_labs_url() -> None:
    link = LabLink(text="the river bank", source="model", layer=3, head=5)
    assert link.href == "/lab?text=the+river+bank&source=model&layer=3&head=5"
    assert parse_qs(urlparse(LabLink(text="a & b?").href).query) == {"text": ["a & b?"], "source": ["illustrative"]}
    step = parse_deck(with_lab({"text": "the old dog", "head": 1}), Path("mini.yaml")).slides[0].steps[1]
    assert step.lab.href == "/lab?text=the+old+dog&source=illustrative&head=1" and step.lab.label == "Try it in the lab"


@pytest.mark.parametrize(("lab", "words"), [
    ({"text": "the old dog", "layer": 3}, "lab: Value error, layer: only the model source"),
    ({"text": " ".join(["w"] * 65)}, "text: the lab takes 1 to 64 words, got 65"),
    ({"text": "two\nlines"}, "no control characters"),
    ({"text": "x", "source": "gpt"}, "lab.source"),
    ({"text": "x", "head": 64}, "lab.head"),
    ({"text": "x", "colour": "red"}, "lab.colour"),
    ({"text": "x", "label": "Open it in 3 clicks"}, "field lab.label: the number '3' is typed"),
])
def test_a_bad_link_is_an_error_naming_the_step(lab, words) -> None:
    with pytest.raises(DeckError) as err:
        parse_deck(with_lab(lab), Path("mini.yaml"))
    message = "; ".join(err.value.errors)
    assert "slide 1 (one) › step 2" in message and words in message, message


@pytest.mark.parametrize("deck_id", ["attention-step-by-step", "attention-walkthrough"])
def test_the_last_slide_of_chapters_one_and_two_links_to_the_lab(client, deck_id) -> None:
    # (chapter 3, real-heads, links to the lab from its closing slide with a link widget of its own)
    deck = load_deck(data_dir("slides") / f"{deck_id}.yaml")
    links = [step.lab for step in deck.slides[-1].steps if step.lab is not None]
    assert links and all(link.source == "model" and link.text == deck.story.sentence for link in links)
    page = client.get(f"/talk/{deck.id}").text
    for link in links:
        assert f'<a class="step-lab" href="{html.escape(link.href)}">{link.label}</a>' in page


def test_the_index_links_to_the_lab(client) -> None:
    assert '<a href="/lab">' in client.get("/").text
