"""The figures chapter 2's words quote (registered on CHAPTER): the two-head example's numbers and
the KV-cache comparison of the deck's preset."""

from __future__ import annotations

from attention_talk.engine import costs
from attention_talk.formatting import number, vector
from attention_talk.frames.walkthrough.chapter import CHAPTER
from attention_talk.frames.walkthrough.heads import two_heads
from attention_talk.frames.walkthrough.inputs import spec_x


@CHAPTER.figure_source
def walkthrough_figures(deck) -> dict[str, object]:
    """Figures the walkthrough's words quote: the two-head example and the KV-cache comparison."""
    mh, _ = two_heads(deck.story.seed)
    c = costs(deck.preset)
    fig: dict[str, object] = {
        "mh_river_weights": ", ".join(number(x, 3) for x in mh.heads[0].weights[0]),
        "mh_river_out1": vector(mh.heads[0].output[0], 3), "mh_river_out2": vector(mh.heads[1].output[0], 3),
        "spec_d_model": spec_x().shape[1], "spec_d_head": spec_x().shape[1] // 2}
    if c.preset.mla is not None:
        fig |= {"kv_mha_bytes": c.kv_bytes_per_token_layer("mha").value,
                "kv_mla_bytes": c.kv_bytes_per_token_layer("mla").value,
                "kv_ratio": number(c.kv_ratio("mha", "mla").value, 1)}
    return fig
