"""Rotary position embedding (RoPE): positions written into queries and keys as rotations.

Su et al. 2021, "RoFormer: Enhanced Transformer with Rotary Position Embedding" (arXiv:2104.09864),
eq. 34: the width d is cut into d/2 pairs; pair i of the vector at position p is turned by the
angle p·θ_i with θ_i = base^(-2i/d). A rotation keeps lengths, and the dot product of a query
rotated by p·θ with a key rotated by s·θ depends on p and s only through p − s, so attention scores
see relative positions although each vector carries its absolute one.

Which coordinates form a pair is a convention of the weights, not of the maths:

    "adjacent"  pairs (x[2i], x[2i+1])          — the paper; llama.cpp's "normal" RoPE, used by
                                                  Llama-architecture GGUF files (the converter
                                                  permutes W_Q and W_K to match)
    "halves"    pairs (x[i], x[i + d/2])        — GPT-NeoX and Hugging Face checkpoints

Letters used in the shape comments:
    n   positions (tokens)      d   width of each vector (even)      ...  any leading axes (heads)

NumPy only, no I/O.
"""

from __future__ import annotations

import numpy as np

PAIRINGS = ("adjacent", "halves")


def _check_width(d: int) -> int:
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 2 or d % 2:
        raise ValueError(f"RoPE needs an even width d >= 2, got {d!r}")
    return int(d)


def rope_frequencies(d: int, base: float = 10_000.0) -> np.ndarray:
    """θ_i = base^(-2i/d) for the d/2 pairs, i = 0 … d/2 − 1: (d/2,)."""
    d = _check_width(d)
    if not np.isfinite(base) or base <= 1:
        raise ValueError(f"RoPE base must be a finite number > 1, got {base!r}")
    return base ** (-np.arange(0, d, 2, dtype=np.float64) / d)  # (d/2,)


def rope_angles(positions: np.ndarray | list[int], d: int, base: float = 10_000.0) -> np.ndarray:
    """The angle of every pair at every position: p·θ_i, shape (n, d/2)."""
    p = np.asarray(positions, dtype=np.float64).reshape(-1)  # (n,)
    if p.size and not np.all(np.isfinite(p)):
        raise ValueError("positions must be finite")
    return np.outer(p, rope_frequencies(d, base))  # (n, d/2)


def rope(x: np.ndarray, positions: np.ndarray | list[int] | None = None, *, base: float = 10_000.0,
         pairs: str = "adjacent") -> np.ndarray:
    """Rotate every row of ``x`` (..., n, d) by its position's angles; returns a new array.

    ``positions`` (n,) defaults to 0 … n − 1. With ``pairs="adjacent"`` coordinates 2i and 2i+1 turn
    together; with ``pairs="halves"`` coordinates i and i + d/2 do.
    """
    if pairs not in PAIRINGS:
        raise ValueError(f"pairs must be one of {', '.join(PAIRINGS)}, got {pairs!r}")
    x = np.asarray(x, dtype=np.float64)
    if x.ndim < 2:
        raise ValueError(f"rope expects (..., n, d) with one row per position, got shape {x.shape}")
    n, d = x.shape[-2], _check_width(x.shape[-1])
    positions = np.arange(n) if positions is None else np.asarray(positions)
    if positions.shape != (n,):
        raise ValueError(f"positions must have one entry per row: {n}, got shape {positions.shape}")
    angles = rope_angles(positions, d, base)  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)  # (n, d/2) each
    if pairs == "adjacent":
        a, b = x[..., 0::2], x[..., 1::2]  # (..., n, d/2): first and second of each pair
    else:
        a, b = x[..., : d // 2], x[..., d // 2:]
    ra = a * cos - b * sin  # (..., n, d/2)
    rb = a * sin + b * cos  # (..., n, d/2)
    out = np.empty_like(x)
    if pairs == "adjacent":
        out[..., 0::2], out[..., 1::2] = ra, rb
    else:
        out[..., : d // 2], out[..., d // 2:] = ra, rb
    return out


def rope_matrix(position: float, d: int, base: float = 10_000.0, pairs: str = "adjacent") -> np.ndarray:
    """The (d, d) rotation R_p with rope(x)[p] = R_p x[p]: block-diagonal 2 × 2 rotations."""
    return rope(np.eye(_check_width(d))[:, None, :], np.array([position]), base=base, pairs=pairs)[:, 0, :].T
