"""What every frame builder may read: the deck, its sentence, (for a chapter that reads a real model)
the loaded model, and a cache for work a deck's builders share.

It holds nothing of any one chapter: a chapter whose builders read more (chapter 1's story model)
extends it (``Chapter.context``), and ``frames.build_frame`` hands each builder its chapter's kind,
sharing one cache per deck, so that work is done once and only for a deck that uses the chapter.
Importing it imports no chapter and no NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Self

from attention_talk.deck import Deck


@dataclass
class BuildContext:
    deck: Deck
    model: Any = None  # an attention_talk.model.Model, for the chapters that need one
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, ctx: BuildContext) -> Self:
        """``ctx`` as this kind of context: the same deck, model and cache (``ctx`` itself if it is one)."""
        return ctx if isinstance(ctx, cls) else cls(ctx.deck, model=ctx.model, _cache=ctx._cache)

    def cached(self, key: str, make):
        """``make()`` once per build context (work shared by a deck's builders, e.g. model runs)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def tokens(self) -> list[str]:
        return list(self.deck.story.tokens)

    @property
    def focus(self) -> int:
        """Index of the token the story follows (the deck's ``story.focus``, else the last)."""
        focus = self.deck.story.focus
        return self.tokens.index(focus) if focus in self.tokens else len(self.tokens) - 1
