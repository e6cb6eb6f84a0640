"""Chapter 2's frame builders, one module per section; importing the package registers them.

Nine sections, from how a word becomes numbers to what attention costs. Inputs are designed (see
``inputs``, the chapter's own); every number drawn is computed from them by the engine, and
widgets (bars, cards, the token picker, the n² slider, FlashAttention tiles…) receive only numbers
computed here. Each module keeps its boxes in a ``LAYOUT`` table and its stages in a ``STAGES``
table; ``shared`` holds the chapter's helpers, ``figures`` the figures its words quote.
"""

from attention_talk.frames.walkthrough import (  # noqa: F401  (each import registers its builders)
    cost,
    cover,
    equation,
    figures,
    flash,
    heads,
    masks,
    pipeline,
    qkv,
    rnn,
    specialists,
    summary,
    word,
)
from attention_talk.frames.walkthrough.chapter import CHAPTER

__all__ = ["CHAPTER"]
