"""Accessibility that the server decides: equations carry words (alttext, whole identifiers), the
pages carry the landmarks and live regions a screen reader needs, and no chatty live region."""

from __future__ import annotations

import re

import pytest

from attention_talk import mathml
from attention_talk.deck import read_decks
from attention_talk.paths import data_dir


@pytest.mark.parametrize("latex, words", [
    (r"\mathrm{Attention}(Q,K,V)", "Attention(Q,K,V)"),
    (r"\frac{QK^\top}{\sqrt{d_k}}", "(QK transposed) over (square root of (d sub k))"),
    (r"{\color{weights}A}=\mathrm{softmax}(S)", "A=softmax(S)"),
    (r"O=\mathrm{concat}(Z_1,\ldots,Z_h)\,W_O", "O=concat(Z sub 1, … ,Z sub h) W sub O"),
])
def test_alttext_reads_the_equation_in_words(latex, words) -> None:
    assert mathml.alttext(latex) == words


def test_upright_words_are_one_identifier_and_every_equation_has_alttext() -> None:
    decks, errors = read_decks(data_dir("slides"))
    assert not errors
    equations = [latex for deck in decks.values() for slide in deck.slides
                 for latex in (slide.equations or {}).values()]
    assert len(equations) >= 2
    for latex in equations:
        markup = mathml.render(latex)
        assert re.match(r'<math alttext="[^"<>]+"', markup), markup[:80]
        assert "\\" not in re.search(r'alttext="([^"]*)"', markup).group(1)
        # no run of one-letter upright identifiers: a reader would spell "s o f t m a x"
        assert not re.search(r'(<mi mathvariant="normal">[^<]</mi>){2}', markup)
    assert '<mi mathvariant="normal">softmax</mi>' in mathml.render(r"\mathrm{softmax}(x)")


def test_alttext_cannot_break_out_of_its_attribute() -> None:
    markup = mathml.render(r'\text{a"b<c}')
    alt = re.search(r'<math alttext="([^"]*)"', markup).group(1)
    assert "<" not in alt and '"' not in alt


def test_the_talk_page_has_one_announcer_and_no_chatty_regions(client) -> None:
    page = client.get("/talk/attention-step-by-step").text
    assert page.count('aria-live="polite"') == 1 and 'id="announcer"' in page
    assert 'role="img" aria-label' not in page.split('class="canvas"', 1)[1][:200]  # drawings hold buttons
    presenter = client.get("/talk/attention-step-by-step/presenter").text
    timer = presenter.split('class="timer"', 1)[1].split("</div>", 1)[0]
    # a clock ticking twice a second must not talk (an <output> is a polite live region)
    assert "<output" not in timer and "polite" not in timer and "assertive" not in timer
    help_ = page.split('id="help"', 1)[0].rsplit("<div", 1)[1] + page.split('id="help"', 1)[1][:200]
    assert 'role="dialog"' in help_ and 'aria-modal="true"' in help_
    assert 'id="single-keys"' in page
