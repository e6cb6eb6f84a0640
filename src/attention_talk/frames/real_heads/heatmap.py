"""A measure over every head as a heatmap (``real.heatmap``): every head of every layer of the model
scored on one ``engine.heads`` measure, drawn as colour (the numbers on hover or focus); the top
scorer (``engine.heads.best_head``) outlined; then its cell grown into that head's own map, from
the same model run the measure read."""

from __future__ import annotations

from typing import Literal

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.kit.chapter import Params
from attention_talk.frames.kit.heads import heatmap_data
from attention_talk.frames.kit.layout import CONTENT
from attention_talk.frames.kit.widgets import widget
from attention_talk.frames.real_heads.analysis import MEASURE_NAMES, Analysis, analysis
from attention_talk.frames.real_heads.chapter import CHAPTER
from attention_talk.frames.real_heads.jobs import WHAT, targets
from attention_talk.frames.real_heads.shared import token_labels

LAYOUT = {"heatmap": CONTENT}


class HeatmapParams(Params):
    measure: Literal["previous", "first", "induction"] = "previous"
    stage: Literal["grid", "winner", "zoom"]


def zoom_window(an: Analysis, measure: str) -> dict:
    """The winner's map: every row and column of the sentence; for induction, the second copy's rows
    against the first copy and one more token (where its targets are), as chapter 3's example shows."""
    job = an.jobs[measure]
    run = an.repeated if measure == "induction" else an.sentence
    toks = token_labels(run.tokens)
    n = len(toks)
    rows = list(range(n // 2, n)) if measure == "induction" else list(range(n))
    cols = list(range(n // 2 + 1)) if measure == "induction" else list(range(n))
    w = run.head(job.layer, job.head).weights  # (n, n)
    cells = [(rows.index(q), cols.index(k)) for q, k in targets(job) if q in rows and k in cols]
    return {"title": f"layer {job.layer}, head {job.head}", "rows": [toks[i] for i in rows],
            "cols": [toks[j] for j in cols], "weights": w[rows][:, cols].tolist(), "targets": cells}


@CHAPTER.builder("real.heatmap", HeatmapParams)
def heatmap(ctx: BuildContext, p: HeatmapParams) -> FrameBody:
    """Every head scored on a measure as a heatmap; the top scorer outlined, then zoomed into its map."""
    an = analysis(ctx)
    job = an.jobs[p.measure]
    layers, heads = job.grid.shape
    data = heatmap_data(f"{MEASURE_NAMES[p.measure]}: share of attention {WHAT[p.measure]}", job.grid.T,
                        rows=[str(h) for h in range(heads)], cols=[str(layer) for layer in range(layers)],
                        row_axis="head", col_axis="layer", stage=p.stage,
                        zoom=zoom_window(an, p.measure) if p.stage == "zoom" else None)
    return FrameBody(widgets=[widget("heatmap", "heatmap", LAYOUT["heatmap"], data, kind="weights")])
