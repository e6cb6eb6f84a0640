"""The figures chapter 3's words quote, computed from the loaded model on first use (registered on
CHAPTER as model figures; their names are checked when the deck loads)."""

from __future__ import annotations

from attention_talk.formatting import count, number
from attention_talk.frames.real_heads.analysis import analyse
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.gqa import kv_figures
from attention_talk.frames.real_heads.shared import display_name

NAMES = ("model_name", "file_layers", "file_heads", "file_kv_heads", "file_head_dim", "file_d_model",
         "group_size", "tokens_n", "prev_layer", "prev_head", "prev_score", "sink_layer", "sink_head",
         "sink_score", "ind_layer", "ind_head", "ind_score", "kv_mha_bytes", "kv_gqa_bytes", "kv_ratio",
         "ds_kv_ratio", "repeated_text", "sink_over_half", "heads_total")


def model_figures(deck, model) -> dict[str, object]:
    """Sizes from the model file, the three jobs' top heads with their scores, the KV-cache figures."""
    c = model.config
    an = analyse(model, deck.story.sentence, deck.story.seed)
    j = an.jobs
    kv = kv_figures(model)
    fig: dict[str, object] = {
        "model_name": display_name(c), "file_layers": c.layers, "file_heads": c.heads, "file_kv_heads": c.kv_heads,
        "file_head_dim": c.head_dim, "file_d_model": c.d_model, "group_size": c.heads // c.kv_heads,
        "tokens_n": len(an.sentence.tokens), "repeated_text": an.repeated.text.strip(),
        "kv_mha_bytes": count(kv["mha"].value), "kv_gqa_bytes": count(kv["gqa"].value),
        "kv_ratio": number(kv["ratio"], 1), "ds_kv_ratio": number(kv["ds_ratio"], 1)}
    fig |= {"sink_over_half": int((j["first"].grid > 0.5).sum()), "heads_total": int(j["first"].grid.size)}
    for key, m in (("prev", "previous"), ("sink", "first"), ("ind", "induction")):
        fig |= {f"{key}_layer": j[m].layer, f"{key}_head": j[m].head, f"{key}_score": f"{j[m].best:.0%}"}
    return fig


CHAPTER.model_figures.append(model_figures)
CHAPTER.model_figure_names = NAMES
