"""Data for the ``rope`` and ``gqa`` widget kinds, computed from the engine (``engine.rope``,
``engine.gqa``, ``engine.costs``); the builders pass in the model's sizes and vectors.

RoPE: a pair i of a vector at position p is drawn as the 2-D arrow of its two coordinates turned by
p·θᵢ (``rope_angles``); the score of a column is the engine's rotated query · rotated key over all
d numbers. ``drawn_angle`` is the view's rule for where an arrow points, so tests can hold the
drawing to the engine's rotation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from attention_talk.engine.gqa import kv_head_of
from attention_talk.engine.rope import rope, rope_angles, rope_frequencies
from attention_talk.frames.widgets.mechanisms_model import GqaBar, GqaData, RopeColumn, RopePair

__all__ = ["drawn_angle", "gqa_data", "placed_columns", "rope_pairs", "turn_columns"]

SPEEDS = ("fast", "middle", "slow", "slowest")


def rope_pairs(width: int, base: float, pairs: Sequence[int]) -> list[RopePair]:
    """The pairs drawn, with their rates θᵢ from the engine; four are named fast … slowest in order."""
    theta = rope_frequencies(width, base)  # (d/2,)
    names = SPEEDS if len(pairs) == len(SPEEDS) else tuple(f"pair {i}" for i in pairs)
    return [RopePair(index=int(i), theta=float(theta[i]), name=n) for i, n in zip(pairs, names, strict=True)]


def turn_columns(positions: Sequence[int], width: int, base: float, pairs: Sequence[int],
                 labels: Sequence[str]) -> list[RopeColumn]:
    """One unit arrow (1, 0) per pair, turned by position·θᵢ, for each position."""
    angles = rope_angles(np.asarray(positions), width, base)[:, list(pairs)]  # (positions, pairs)
    return [RopeColumn(label=lab, q_pos=int(p), q=[(1.0, 0.0)] * len(pairs), q_angles=[float(a) for a in row])
            for p, lab, row in zip(positions, labels, angles, strict=True)]


def placed_columns(q: np.ndarray, k: np.ndarray, placements: Sequence[tuple[str, int, int]], base: float,
                   pairs: Sequence[int]) -> list[RopeColumn]:
    """The query ``q`` (d,) and key ``k`` (d,), both before RoPE, placed at (label, q_pos, k_pos) each:
    their pairs' coordinates, the angles they turn by, and the engine's score R(q_pos)q · R(k_pos)k."""
    d = q.shape[-1]
    cols = []
    for label, qp, kp in placements:
        angles = rope_angles(np.array([qp, kp]), d, base)[:, list(pairs)]  # (2, pairs)
        score = float(rope(q[None], np.array([qp]), base=base)[0] @ rope(k[None], np.array([kp]), base=base)[0])
        cols.append(RopeColumn(label=label, q_pos=int(qp), k_pos=int(kp),
                               q=[(float(q[2 * i]), float(q[2 * i + 1])) for i in pairs],
                               k=[(float(k[2 * i]), float(k[2 * i + 1])) for i in pairs],
                               q_angles=[float(a) for a in angles[0]], k_angles=[float(a) for a in angles[1]],
                               score=score))
    return cols


def drawn_angle(vec: tuple[float, float], angle: float) -> float:
    """Where the view points an arrow: the pair's own direction turned by RoPE's angle (radians,
    counter-clockwise from the x axis), as ``atan2`` of the rotated pair."""
    return float(np.arctan2(vec[1], vec[0]) + angle)


def gqa_data(title: str, heads: int, kv_heads: int, head_dim: int, bars: Sequence[GqaBar], unit: str,
             stage: str) -> GqaData:
    """The wiring of ``heads`` query heads onto ``kv_heads`` (the engine's grouping) and the cache bars."""
    groups = [kv_head_of(h, heads, kv_heads) for h in range(heads)]
    return GqaData(title=title, heads=heads, kv_heads=kv_heads, groups=groups, head_dim=head_dim, bars=list(bars),
                   unit=unit, stage=stage)
