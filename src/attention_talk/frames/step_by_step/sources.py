"""Slide "Sources": the papers chapter 1 stands on, each with what it contributed (sizes filled in
from the deck's figures).
"""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody, Note
from attention_talk.frames.figures import COMMON, figures, fill
from attention_talk.frames.kit.chapter import NoParams
from attention_talk.frames.kit.layout import box, rows
from attention_talk.frames.step_by_step.chapter import CHAPTER

SOURCES = [
    ("Vaswani et al. 2017, Attention Is All You Need (arXiv:1706.03762)",
     "Queries, keys and values; scaled dot-product attention; multi-head attention; the causal mask."),
    ("DeepSeek-V3 report (arXiv:2412.19437) and DeepSeek-V3.2 (arXiv:2512.02556)",
     "The widths used throughout: d = {d_model}, {heads} heads of {d_k}, {layers} layers, {max_positions} "
     "positions; sparse attention (DSA): each query reads the top {dsa_top_k} tokens."),
    ("DeepSeek-V2 report (arXiv:2405.04434)",
     "Multi-head latent attention (MLA): the real, compressed form of these projections, {mla_weights} "
     "weights per layer."),
    ("Kaplan et al. 2020 (arXiv:2001.08361)",
     "The FLOP convention of the counter: {flops_per_weight} FLOPs per multiply-add."),
]
NOTE_H, NOTE_GAP = 140, 20
LAYOUT = {"list": box(120, 130, 1360, len(SOURCES) * (NOTE_H + NOTE_GAP) - NOTE_GAP)}  # one note per source


@CHAPTER.builder("story.sources")
def sources(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The papers the chapter stands on, with what each contributed."""
    figs = figures(ctx.deck, [*COMMON, *CHAPTER.figures])
    areas = rows(LAYOUT["list"], [1] * len(SOURCES), gap=NOTE_GAP)
    return FrameBody(notes=[Note(id=f"src{i}", box=area, kind="neutral", text=f"{title}. {fill(what, figs)}")
                            for i, ((title, what), area) in enumerate(zip(SOURCES, areas, strict=True))])
