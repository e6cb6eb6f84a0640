"""What a frame builder may read: the deck, the story model computed once for it, and (for a chapter
that reads a real model) the loaded model."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from attention_talk.deck import Deck
from attention_talk.story import StoryModel, build_story


@dataclass
class BuildContext:
    deck: Deck
    model: Any = None  # an attention_talk.model.Model, for the chapters that need one
    _cache: dict = field(default_factory=dict, repr=False)

    def cached(self, key: str, make):
        """``make()`` once per build context (work shared by a deck's builders, e.g. model runs)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @cached_property
    def story(self) -> StoryModel:
        return build_story(self.deck.story.tokens, seed=self.deck.story.seed)

    @property
    def tokens(self) -> list[str]:
        return list(self.deck.story.tokens)

    @property
    def focus(self) -> int:
        """Index of the token the story follows (the deck's ``story.focus``, else the last)."""
        focus = self.deck.story.focus
        return self.tokens.index(focus) if focus in self.tokens else len(self.tokens) - 1
