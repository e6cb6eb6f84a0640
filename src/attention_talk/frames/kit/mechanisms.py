"""The data of the mechanism widgets (``frames/widgets/mechanisms.py``), computed from the engine's
arrays: any chapter hands in a row, a map or a mask the engine made, and gets the widget's ``data``
with every intermediate the view draws. Nothing here types a number; each function says which
engine result its numbers equal (tests/test_mechanisms.py checks them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.engine import softmax
from attention_talk.engine.checks import check_mask
from attention_talk.formatting import number
from attention_talk.frames.widgets.mechanisms import (
    MaskData,
    MaskStage,
    ScalingData,
    ScalingStage,
    SoftmaxData,
    SoftmaxStage,
)

__all__ = ["histogram_edges", "mask_addition", "scaling_spread", "softmax_process"]

HIST_BINS = 30  # bins of the scaling histogram over the raw scores' range
TICKS = 6  # about this many labelled values on its axis


def _finite_or_none(values: np.ndarray) -> list[float | None]:
    """Floats for JSON, None for −∞ (the frames' way of writing a masked value)."""
    return [None if v == -np.inf else float(v) for v in values]


def softmax_process(row: Sequence[float] | np.ndarray, labels: Sequence[str], *, stage: SoftmaxStage, title: str,
                    digits: int = 2, identity: str | None = None) -> SoftmaxData:
    """Softmax of one row of a map (scaled scores plus the mask, −∞ where blocked), step by step:
    the row max, score − max, exp of it, their sum, and the weights, which are the engine's
    ``softmax`` of the row (so they equal the map's weights row). ``identity``: what the bars are
    across frames (continuity), when a tensor before or after shares it."""
    x = np.asarray(row, dtype=np.float64)  # (n_k,)
    if x.ndim != 1 or len(x) != len(labels):
        raise ValueError(f"softmax_process needs one row and one label per entry, got shape {x.shape} "
                         f"and {len(labels)} labels")
    allowed = np.isfinite(x)
    if not allowed.any():
        raise ValueError("softmax_process needs a row with at least one unmasked score")
    row_max = float(x[allowed].max())
    shifted = x - row_max  # (n_k,)  ≤ 0, −∞ stays −∞
    exps = np.exp(shifted)  # (n_k,)  exp(−∞) = 0
    return SoftmaxData(title=title, labels=list(labels), scores=_finite_or_none(x), row_max=row_max,
                       shifted=_finite_or_none(shifted), exps=[float(e) for e in exps], total=float(exps.sum()),
                       weights=[float(w) for w in softmax(x)], stage=stage, digits=digits,
                       **({} if identity is None else {"identity": identity}))


def mask_addition(scores: np.ndarray, mask: np.ndarray, rows: Sequence[str], cols: Sequence[str], *,
                  stage: MaskStage, scores_label: str, mask_label: str, result_label: str,
                  digits: int = 2, identity: str | None = None) -> MaskData:
    """Scaled scores, an additive mask the engine made (``causal_mask``, ``padding_mask``,
    ``additive_mask``: 0 keeps, −∞ blocks) and their sum, which is the engine's ``masked`` map.
    ``identity``: what the scores matrix is across frames (continuity)."""
    s = np.asarray(scores, dtype=np.float64)  # (n_q, n_k)
    if s.ndim != 2 or s.shape != (len(rows), len(cols)) or not np.isfinite(s).all():
        raise ValueError(f"mask_addition needs finite scores of shape ({len(rows)}, {len(cols)}), got {s.shape}")
    m = check_mask(mask, *s.shape)
    if not np.isin(m, (0.0, -np.inf)).all():
        raise ValueError("the mask widget draws masks of 0 and −∞ only")
    result = s + m  # (n_q, n_k)
    return MaskData(rows=list(rows), cols=list(cols), scores=[[float(v) for v in r] for r in s],
                    mask=[_finite_or_none(r) for r in m], result=[_finite_or_none(r) for r in result],
                    stage=stage, scores_label=scores_label, mask_label=mask_label, result_label=result_label,
                    digits=digits, **({} if identity is None else {"identity": identity}))


def histogram_edges(values: np.ndarray, bins: int = HIST_BINS) -> tuple[np.ndarray, np.ndarray]:
    """Bin edges from 0 (or below, for negative values) to past the largest value, rounded out to a
    step of the axis, and the ticks on that step: the raw scores' range, which the scaled scores share."""
    lo, hi = min(0.0, float(values.min())), max(0.0, float(values.max()))
    step = float(10 ** np.floor(np.log10(max(hi - lo, 1e-9) / TICKS)))
    step *= next(k for k in (1, 2, 5, 10) if (hi - lo) / (step * k) <= TICKS)
    lo, hi = np.floor(lo / step) * step, np.ceil(hi / step) * step
    if hi == lo:
        hi = lo + step
    return np.linspace(lo, hi, bins + 1), np.arange(lo, hi + step / 2, step)


def scaling_spread(scores: np.ndarray, scale: float, row: int, mask_row: np.ndarray, labels: Sequence[str], *,
                   stage: ScalingStage, raw_label: str, scaled_label: str, row_title: str,
                   bins: int = HIST_BINS) -> ScalingData:
    """Every score of a map before and after ``× scale`` (1/√d_k, the engine's ``Attention.scale``)
    counted on the same bins, and one row's softmax (plus its mask) before and after: the engine's
    ``softmax``. ``raw_label`` and ``scaled_label`` may name {spread}, the values' standard deviation."""
    raw = np.asarray(scores, dtype=np.float64)  # (n_q, n_k)
    scaled = raw * scale  # (n_q, n_k)  the engine's Attention.scaled
    edges, ticks = histogram_edges(raw, bins)
    raw_counts, _ = np.histogram(raw.ravel(), bins=edges)
    scaled_counts, _ = np.histogram(scaled.ravel(), bins=edges)
    m = np.asarray(mask_row, dtype=np.float64)  # (n_k,)
    return ScalingData(
        edges=[float(e) for e in edges], raw_counts=[int(c) for c in raw_counts],
        scaled_counts=[int(c) for c in scaled_counts],
        raw_label=raw_label.format(spread=number(float(raw.std()), 1)),
        scaled_label=scaled_label.format(spread=number(float(scaled.std()), 2)),
        ticks=[float(t) for t in ticks], divisor=float(1 / scale), labels=list(labels),
        raw_weights=[float(w) for w in softmax(raw[row] + m)],
        scaled_weights=[float(w) for w in softmax(scaled[row] + m)],
        masked=[bool(v == -np.inf) for v in m], row_title=row_title, stage=stage)
