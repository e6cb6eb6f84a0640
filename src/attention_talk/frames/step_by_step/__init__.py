"""Chapter 1's frame builders, one module per slide kind; importing the package registers them."""

from attention_talk.frames.step_by_step import (  # noqa: F401  (each module registers its builders)
    context,
    dense,
    figures,
    growth,
    heads,
    output,
    projections,
    query,
    scores,
    softmax,
    sources,
    stack,
    values,
    whole,
)
from attention_talk.frames.step_by_step.chapter import CHAPTER

__all__ = ["CHAPTER"]
