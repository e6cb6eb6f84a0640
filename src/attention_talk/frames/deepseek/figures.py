"""The figures chapter 4's words quote (registered on CHAPTER): the real MLA and DSA sizes from the
cost model's preset and the toy's widths (frames/deepseek/inputs.py)."""

from __future__ import annotations

from attention_talk.engine import costs
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.deepseek.inputs import INDEX_HEADS, INDEX_WIDTH, SIZES, TOP_K


@CHAPTER.figure_source
def deepseek_figures(deck) -> dict[str, object]:
    """Real sizes (q/kv latents, RoPE width, indexer) and the pictures' widths."""
    p = costs(deck.preset).preset
    fig: dict[str, object] = {f"toy_{k}": v for k, v in SIZES.items()}
    fig |= {"toy_index_heads": INDEX_HEADS, "toy_index_width": INDEX_WIDTH, "toy_top_k": TOP_K}
    if p.mla is not None:
        fig |= {"q_lora_rank": p.mla.q_lora_rank, "kv_lora_rank": p.mla.kv_lora_rank,
                "rope_width": p.mla.qk_rope_head_dim, "nope_width": p.mla.qk_nope_head_dim,
                "mla_score_width": p.mla.qk_nope_head_dim + p.mla.qk_rope_head_dim}
    if p.dsa_index_heads is not None:
        fig |= {"index_heads": p.dsa_index_heads, "index_width": p.dsa_index_dim, "dsa_top_k": p.dsa_top_k}
    return fig
