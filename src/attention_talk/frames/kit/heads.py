"""Data for the many-heads widgets (``head-maps``, ``concat``, ``heatmap``), computed from the engine.

A head's job is never written by hand: ``name_heads`` scores every head on every candidate job with
``engine.heads.share`` (the share of a head's attention on the job's target cells) and names each
head after the job it scores highest on. ``heatmap_data`` takes a measure's grid over every head
of a model and its winner from ``engine.heads.best_head``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from attention_talk.engine import MultiHead
from attention_talk.engine import heads as measures
from attention_talk.frames.widgets.mechanisms_heads import (
    ConcatBlock,
    ConcatData,
    HeadMap,
    HeadMapsData,
    HeatmapData,
    HeatmapZoom,
)

__all__ = ["Job", "Naming", "concat_data", "head_maps_data", "heatmap_data", "name_heads", "shown_columns"]


@dataclass(frozen=True)
class Job:
    """A candidate job: its name as drawn and the (n, n) boolean table of the cells it looks at."""

    name: str
    targets: np.ndarray  # (n, n) bool


@dataclass(frozen=True)
class Naming:
    """Every head scored on every job, and each head's best job."""

    jobs: tuple[Job, ...]
    grid: np.ndarray  # (jobs, h): engine.heads.share of each head on each job
    best: tuple[int, ...]  # for each head, the index of the job it scores highest on

    def job_of(self, head: int) -> Job:
        return self.jobs[self.best[head]]

    def score_of(self, head: int) -> float:
        return float(self.grid[self.best[head], head])


def name_heads(weights: np.ndarray, jobs: Sequence[Job]) -> Naming:
    """Score the heads' maps ``weights`` (h, n, n) on every job that has a target in this sentence."""
    kept = tuple(j for j in jobs if j.targets.any())
    if not kept:
        raise ValueError("no job has a target cell in this sentence")
    grid = np.stack([measures.share(weights, j.targets) for j in kept])  # (jobs, h)
    return Naming(kept, grid, tuple(int(b) for b in np.argmax(grid, axis=0)))


def _cells(targets: np.ndarray) -> list[tuple[int, int]]:
    return [(int(q), int(k)) for q, k in zip(*np.nonzero(targets), strict=True)]


def head_maps_data(title: str, tokens: Sequence[str], weights: np.ndarray, naming: Naming | None, *,
                   columns: int = 4) -> HeadMapsData:
    """Each head's map; with ``naming``, its best job, its score and the job's cells."""
    heads = []
    for h, w in enumerate(np.asarray(weights, dtype=np.float64)):
        extra = {} if naming is None else {"job": naming.job_of(h).name, "score": naming.score_of(h),
                                           "targets": _cells(naming.job_of(h).targets)}
        heads.append(HeadMap(title=f"head {h + 1}", weights=w.tolist(), **extra))
    return HeadMapsData(title=title, tokens=list(tokens), heads=heads, columns=columns, named=naming is not None)


def shown_columns(width: int, first: int = 3) -> list[int]:
    """0-based columns of a wide row shown: the first few and the last (``formatting.vector``'s habit)."""
    return list(range(min(first, width))) + ([width - 1] if width > first else [])


def concat_data(run: MultiHead, tokens: Sequence[str], focus: int, stage: str, jobs: Sequence[str] | None = None
                ) -> ConcatData:
    """The heads' outputs as blocks, their concatenation and O = concat · W_O, shapes from the run."""
    blocks = [ConcatBlock(title=f"head {h + 1}", shape=head.output.shape,
                          **({} if jobs is None else {"job": jobs[h]}))
              for h, head in enumerate(run.heads)]
    cols = shown_columns(run.output.shape[1])
    return ConcatData(blocks=blocks, concat=run.concat.shape, w_o=run.w_o.shape, output=run.output.shape,
                      stage=stage, token=tokens[focus], columns=[c + 1 for c in cols],
                      values=[float(run.output[focus, c]) for c in cols])


def heatmap_data(title: str, grid: np.ndarray, *, rows: Sequence[str], cols: Sequence[str], row_axis: str,
                 col_axis: str, stage: str, zoom: Mapping | None = None,
                 winner_identity: str | None = None) -> HeatmapData:
    """A measure's grid (rows × cols) as a heatmap; the winner is ``engine.heads.best_head`` of it."""
    g = np.asarray(grid, dtype=np.float64)
    winner = measures.best_head(g)
    extra = {} if zoom is None else {"zoom": HeatmapZoom(**zoom)}
    return HeatmapData(title=title, rows=list(rows), cols=list(cols), row_axis=row_axis, col_axis=col_axis,
                       values=g.tolist(), winner=winner, stage=stage,
                       winner_identity=winner_identity, **extra)
