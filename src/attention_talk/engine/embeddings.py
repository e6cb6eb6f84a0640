"""Token embeddings and sinusoidal positions.

Follows Vaswani et al. 2017, "Attention Is All You Need" (arXiv:1706.03762): §3.4 (a learned table
with one d-wide row per token id) and §3.5 (fixed sinusoidal positional encodings):

    PE(pos, 2i)   = sin(pos / 10000^(2i/d))
    PE(pos, 2i+1) = cos(pos / 10000^(2i/d))

Letters used in the shape comments:
    n   number of tokens     d   model width     V   vocabulary size
"""

from __future__ import annotations

import numpy as np

POSITION_BASE = 10000.0  # Vaswani et al. 2017 §3.5


def embed(token_ids: np.ndarray | list[int], table: np.ndarray) -> np.ndarray:
    """Look up one row of ``table`` (V, d) per token id; returns (n, d) (or ids.shape + (d,)).

    Ids must be integers in [0, V). Negative ids are rejected rather than wrapped around, which is
    what plain NumPy indexing would silently do.
    """
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2:
        raise ValueError(f"embedding table must be a 2-D (vocabulary, d) matrix, got shape {table.shape}")
    ids = np.asarray(token_ids)
    if ids.size == 0:
        return np.zeros((*ids.shape, table.shape[1]))  # (0, d)
    if ids.dtype == bool or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"token ids must be integers, got dtype {ids.dtype}")
    vocab = table.shape[0]
    bad = ids[(ids < 0) | (ids >= vocab)]
    if bad.size:
        raise ValueError(f"token id {int(bad.flat[0])} is out of range: the table has {vocab} rows, "
                         f"so ids must be in [0, {vocab - 1}]")
    return table[ids]  # (n, d)


def position_frequencies(d: int) -> np.ndarray:
    """1 / 10000^(2i/d) for each column: columns 2i and 2i+1 share frequency i."""
    pair = np.arange(d) // 2  # (d,)  i for column 2i and 2i+1
    return POSITION_BASE ** (-2.0 * pair / d)  # (d,)


def sinusoidal_positions(n: int, d: int) -> np.ndarray:
    """The (n, d) sinusoidal positional encoding of Vaswani et al. 2017 §3.5.

    Even columns 2i hold sin(pos / 10000^(2i/d)), odd columns 2i+1 the matching cos. An odd ``d`` is
    allowed: the formula is applied column by column with the true d in the exponent, so the last
    column is a sine whose cosine partner is simply absent. (This is not the first d columns of the
    (d+1)-wide encoding: the frequencies depend on d.)
    """
    for name, value in (("n", n), ("d", d)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    angles = np.arange(n)[:, None] * position_frequencies(d)[None, :]  # (n, 1)(1, d) = (n, d)
    return np.where(np.arange(d) % 2 == 0, np.sin(angles), np.cos(angles))  # (n, d)
