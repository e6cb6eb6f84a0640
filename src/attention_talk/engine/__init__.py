"""The attention engine: pure NumPy, no I/O, usable from a notebook.

    >>> from attention_talk.engine import attend, causal_mask
    >>> import numpy as np
    >>> a = attend(np.eye(3), np.eye(3), np.arange(9.0).reshape(3, 3), causal=True)
    >>> a.weights.sum(axis=1).round(6).tolist()
    [1.0, 1.0, 1.0]
"""

from typing import TYPE_CHECKING

from attention_talk.engine.costs import (  # no NumPy: imported at once (the web app's start-up needs PRESETS)
    PRESETS,
    Costs,
    Count,
    MLAShape,
    PerContext,
    Preset,
    costs,
    get_preset,
)
from attention_talk.lazy import lazy_exports

if TYPE_CHECKING:
    from attention_talk.engine.attention import (
        Attention,
        MultiHead,
        attend,
        causal_mask,
        merge_heads,
        multi_head,
        padding_mask,
        scores,
        softmax,
    )
    from attention_talk.engine.decode import Decode, DecodeStep, KVCache, decode, decode_step, decode_step_grouped
    from attention_talk.engine.embeddings import embed, sinusoidal_positions
    from attention_talk.engine.flash import FlashAttention, Tile, flash_attend
    from attention_talk.engine.gqa import GroupedAttention, GroupedMaps, grouped_attend, grouped_maps, kv_head_of
    from attention_talk.engine.rope import rope, rope_angles, rope_frequencies, rope_matrix

# The NumPy modules load on first use of one of their names (attention_talk/lazy.py).
lazy_exports(__name__, {
    **dict.fromkeys(["Attention", "MultiHead", "attend", "causal_mask", "merge_heads", "multi_head",
                     "padding_mask", "scores", "softmax"], "attention"),
    **dict.fromkeys(["Decode", "DecodeStep", "KVCache", "decode", "decode_step", "decode_step_grouped"], "decode"),
    **dict.fromkeys(["embed", "sinusoidal_positions"], "embeddings"),
    **dict.fromkeys(["FlashAttention", "Tile", "flash_attend"], "flash"),
    **dict.fromkeys(["GroupedAttention", "GroupedMaps", "grouped_attend", "grouped_maps", "kv_head_of"], "gqa"),
    **dict.fromkeys(["rope", "rope_angles", "rope_frequencies", "rope_matrix"], "rope"),
})

__all__ = [
    "PRESETS",
    "Attention",
    "Costs",
    "Count",
    "Decode",
    "DecodeStep",
    "FlashAttention",
    "GroupedAttention",
    "GroupedMaps",
    "KVCache",
    "MLAShape",
    "MultiHead",
    "PerContext",
    "Preset",
    "Tile",
    "attend",
    "causal_mask",
    "costs",
    "decode",
    "decode_step",
    "decode_step_grouped",
    "embed",
    "flash_attend",
    "get_preset",
    "grouped_attend",
    "grouped_maps",
    "kv_head_of",
    "merge_heads",
    "multi_head",
    "padding_mask",
    "rope",
    "rope_angles",
    "rope_frequencies",
    "rope_matrix",
    "scores",
    "sinusoidal_positions",
    "softmax",
]
