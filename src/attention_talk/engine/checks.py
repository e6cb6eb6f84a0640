"""The rules every attention function keeps, stated once: what it accepts, and the one message for what it refuses.

``attend``, ``multi_head``, ``flash_attend``, the decoders, ``grouped_attend`` / ``grouped_maps`` and the
lab's chain call these instead of checking for themselves, so one bad input is refused the same way
(the same ValueError, word for word) whichever function it is handed to:

- the operands: finite float matrices (or stacks of them, one per head), Q and K of one width d_k;
- the scale: ``None`` for 1/√d_k (Vaswani et al. 2017, section 3.2.1), or a finite real number;
- the mask: additive, 0 keeps and -∞ blocks, one (n_q, n_k) matrix of real numbers (not booleans;
  ``attention.additive_mask`` adds the causal mask to it);
- the heads: positive integers h and h_kv, h_kv dividing h (each key/value head serves h / h_kv
  consecutive query heads; Ainslie et al. 2023, arXiv:2305.13245).

Letters as in ``attention.py``: n_q queries, n_k keys, d_k query/key width, h heads, h_kv key/value heads.
NumPy only, no I/O.
"""

from __future__ import annotations

import numbers

import numpy as np


def check_matrix(name: str, x: np.ndarray) -> np.ndarray:
    """``x`` as a finite 2-D float64 array, or ValueError naming it."""
    a = _real(name, x)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D matrix, got shape {a.shape}")
    return _finite(name, a)


def check_stack(name: str, x: np.ndarray) -> np.ndarray:
    """``x`` as a finite (heads, rows, width) float64 array, or ValueError naming it."""
    a = _real(name, x)
    if a.ndim != 3:
        raise ValueError(f"{name} must have shape (heads, rows, width), got {a.shape}")
    return _finite(name, a)


def _real(name: str, x: np.ndarray) -> np.ndarray:
    """``x`` as a float64 array, or ValueError naming it when it does not hold real numbers (text,
    complex numbers, ``None``s, rows of different lengths): NumPy's own message would not say which."""
    a = _array(name, x)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"{name} must hold real numbers, got dtype {a.dtype}")
    return a.astype(np.float64, copy=False)


def _array(name: str, x: np.ndarray) -> np.ndarray:
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as error:  # rows of different lengths
        raise ValueError(f"{name} must be an array of real numbers: {error}") from None


def _finite(name: str, a: np.ndarray) -> np.ndarray:
    if a.size and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return a


def check_widths(q: np.ndarray, k: np.ndarray) -> int:
    """d_k, the width queries and keys share (their last axis), or ValueError showing both shapes."""
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"Q and K must have the same width d_k: Q is {q.shape}, K is {k.shape}")
    return q.shape[-1]


def check_qkv(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Q, K, V as finite matrices with matching shapes, and the score scale (default 1/√d_k): the
    inputs of ``attend`` and ``flash_attend``."""
    q, k, v = check_matrix("Q", q), check_matrix("K", k), check_matrix("V", v)
    d_k = check_widths(q, k)
    check_rows(k, v)
    return q, k, v, check_scale(scale, d_k)


def check_rows(k: np.ndarray, v: np.ndarray) -> int:
    """n_k, the rows (keys) K and V share (their second-to-last axis), or ValueError showing both."""
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"K and V must have the same number of rows n_k: K is {k.shape}, V is {v.shape}")
    return k.shape[-2]


def check_scale(scale: float | None, d_k: int) -> float:
    """The factor the scores are multiplied by: 1/√d_k when ``scale`` is None (1 for an empty
    width), else ``scale`` itself, which must be a finite real number. Zero and negative scales are
    allowed: they are honest maths (uniform rows, preferences turned around), and a slide may show them."""
    if scale is None:
        return float(1.0 / np.sqrt(d_k)) if d_k else 1.0
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, numbers.Real) or not np.isfinite(scale):
        raise ValueError(f"scale must be a finite real number or None (1/√d_k), got {scale!r}")
    return float(scale)


def check_mask(mask: np.ndarray | None, n_q: int, n_k: int) -> np.ndarray | None:
    """``mask`` as an additive (n_q, n_k) float64 matrix (0 keeps, -inf blocks), or ValueError.

    A boolean mask is refused rather than read as 0 and 1 (which would block nothing): which of
    True and False means "keep" differs between libraries, an additive mask says it with its numbers."""
    if mask is None:
        return None
    m = _array("mask", mask)
    if m.dtype == bool:
        raise ValueError("mask must be additive (0 keeps, -inf blocks), got booleans: "
                         "use np.where(keep, 0.0, -np.inf)")
    m = _real("mask", m)
    if m.shape != (n_q, n_k):
        raise ValueError(f"mask must have shape (n_q, n_k) = {(n_q, n_k)}, got {m.shape}")
    if np.isnan(m).any() or (m == np.inf).any():
        raise ValueError("mask must contain only finite values or -inf")
    return m


def check_positive_int(name: str, value: int) -> int:
    """``value`` as an int, or ValueError: a count (of heads, of kept keys) is a positive integer,
    never a bool or a float."""
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_heads(heads: int, kv_heads: int) -> int:
    """r = h / h_kv, the query heads per key/value head, or ValueError: both positive integers,
    h_kv dividing h."""
    for name, value in (("heads", heads), ("kv_heads", kv_heads)):
        check_positive_int(name, value)
    if heads % kv_heads:
        raise ValueError(f"kv_heads = {kv_heads} must divide heads = {heads}")
    return heads // kv_heads


def check_split(name: str, width: int, heads: int) -> int:
    """The width per head of a projection ``width`` columns wide, cut into ``heads`` blocks, or
    ValueError when they do not divide it."""
    if width % heads:
        raise ValueError(f"{name} has {width} columns, which {heads} heads do not divide")
    return width // heads
