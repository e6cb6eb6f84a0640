"""Chapter 2's frame builders, one module per slide kind; importing the package registers them."""

from attention_talk.frames.walkthrough import legacy  # noqa: F401  (registers builders)
from attention_talk.frames.walkthrough.chapter import CHAPTER

__all__ = ["CHAPTER"]
