"""Chapter 3's frame builders, "What real heads do": a real trained model (SmolLM2-135M through
``attention_talk.model``) and what its heads learned, every number computed from its runs.

``analysis`` runs the model once per text (the deck's sentence; a random sequence repeated twice)
and scores every head with ``engine.heads``; the heads shown are the measures' top scorers. One
module per slide, each with its ``LAYOUT`` boxes and stages; ``figures`` holds the words' figures,
computed from the model on first use. Every tensor computed from the model carries its ``source``
(model, text, layer, head) so ``POST /api/model/attention`` can recompute it.
"""

from attention_talk.frames.real_heads import (  # noqa: F401  (each import registers its builders)
    closing,
    cover,
    figures,
    gqa,
    heatmap,
    jobs,
    opening,
    real_map,
    rope,
    sinks,
)
from attention_talk.frames.real_heads.chapter import CHAPTER

__all__ = ["CHAPTER"]
