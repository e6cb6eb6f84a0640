"""Chapter 1's frame builders, one module per slide kind; importing the package registers them."""

from attention_talk.frames.step_by_step import (  # noqa: F401  (each module registers its builders)
    dense,
    figures,
    growth,
    heads,
    mechanisms,
    mechanisms_heads,
    output,
    projections,
    query,
    scores,
    softmax,
    sources,
    stack,
    tokens_need_context,
    values,
    whole,
)
from attention_talk.frames.step_by_step.chapter import CHAPTER

__all__ = ["CHAPTER"]
