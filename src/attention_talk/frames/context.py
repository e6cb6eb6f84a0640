"""What a frame builder may read: the deck and the story model computed once for it."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from attention_talk.deck import Deck
from attention_talk.story import StoryModel, build_story


@dataclass
class BuildContext:
    deck: Deck
    _cache: dict = field(default_factory=dict, repr=False)

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
