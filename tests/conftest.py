"""Shared fixtures: a test module names its deck file in a module-level ``DECK`` path."""

from __future__ import annotations

import pytest

from attention_talk.frames import build_deck_frames, load_deck


@pytest.fixture(scope="module")
def deck(request):
    """The module's deck (``DECK``), validated."""
    return load_deck(request.module.DECK)


@pytest.fixture(scope="module")
def frames(deck):
    """Every frame of the module's deck, keyed by slide id."""
    return build_deck_frames(deck)
