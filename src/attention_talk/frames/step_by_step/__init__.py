"""Chapter 1's frame builders, one module per slide kind; importing the package registers them."""

from attention_talk.frames.step_by_step import legacy  # noqa: F401  (registers builders)
from attention_talk.frames.step_by_step.chapter import CHAPTER

__all__ = ["CHAPTER"]
