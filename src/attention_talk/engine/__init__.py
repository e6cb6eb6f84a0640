"""The attention engine: pure NumPy, no I/O, usable from a notebook.

    >>> from attention_talk.engine import attend, causal_mask
    >>> import numpy as np
    >>> a = attend(np.eye(3), np.eye(3), np.arange(9.0).reshape(3, 3), causal=True)
    >>> a.weights.sum(axis=1).round(6).tolist()
    [1.0, 1.0, 1.0]
"""

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
    split_heads,
)

__all__ = [
    "Attention",
    "MultiHead",
    "attend",
    "causal_mask",
    "merge_heads",
    "multi_head",
    "padding_mask",
    "scores",
    "softmax",
    "split_heads",
]
