"""The figures chapter 1's words quote about the real model (registered on CHAPTER): what the talk's
plain multi-head attention at DeepSeek-V3.2's width leaves out, read from the cost model's preset.

MLA (DeepSeek-V2 §2.1): W_Q alone is two matrices, d × r_q and r_q × h·(d_k + d_r); all five MLA
projections together; scores d_k + d_r wide. DSA: each query reads only the top-k keys. The blocks:
the first few dense, the rest mixture-of-experts.
"""

from __future__ import annotations

from attention_talk.deck import Deck
from attention_talk.engine.costs import costs
from attention_talk.frames.step_by_step.chapter import CHAPTER


@CHAPTER.figure_source
def real_model_figures(deck: Deck) -> dict[str, object]:
    """MLA, DSA and dense/MoE figures of the deck's preset, when the preset has them."""
    c = costs(deck.preset)
    p = c.preset
    out: dict[str, object] = {}
    if p.mla is not None:
        shapes = c.mla_matrices()
        out |= {"mla_weights": c.mla_weights().value,
                "mla_wq_weights": sum(r * k for name, (r, k) in shapes.items() if name.startswith("wq")),
                "mla_score_width": p.mla.qk_nope_head_dim + p.mla.qk_rope_head_dim}
    if p.dense_layers is not None:
        out |= {"dense_layers": p.dense_layers, "moe_layers": p.layers - p.dense_layers}
    if p.dsa_top_k is not None:
        out["dsa_top_k"] = p.dsa_top_k
    return out
