"""Chapter 4's frame builders, "How DeepSeek-V3.2 makes attention cheap": one module per slide.

MLA (``mla``, ``absorb``) and DSA (``sparse``) run on small seeded inputs (``inputs``) through
``engine.mla`` and ``engine.dsa``; the costs (``cache``, ``totals``) come from the cost model at
DeepSeek-V3.2's sizes. ``shared`` holds the chapter's helpers, ``figures`` the figures its words quote.
"""

from attention_talk.frames.deepseek import (  # noqa: F401  (each import registers its builders)
    absorb,
    cache,
    cover,
    figures,
    mla,
    sources,
    sparse,
    totals,
)
from attention_talk.frames.deepseek.chapter import CHAPTER

__all__ = ["CHAPTER"]
