"""Slide "Sources" (``ds.sources``): the reports and papers chapter 4 stands on, one note each."""

from __future__ import annotations

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.contract import FrameBody
from attention_talk.frames.deepseek.chapter import CHAPTER
from attention_talk.frames.kit.chapter import NoParams
from attention_talk.frames.kit.layout import box, rows
from attention_talk.frames.kit.words import note

SOURCES = ("src0", "src1", "src2", "src3")
NOTE_H, NOTE_GAP = 140, 20
LAYOUT = {"list": box(120, 130, 1360, len(SOURCES) * (NOTE_H + NOTE_GAP) - NOTE_GAP)}


@CHAPTER.builder("ds.sources", notes=SOURCES)
def sources(ctx: BuildContext, _p: NoParams) -> FrameBody:
    """The reports and papers the chapter stands on, with what each contributed."""
    areas = rows(LAYOUT["list"], [1] * len(SOURCES), gap=NOTE_GAP)
    return FrameBody(notes=[note(id, area) for id, area in zip(SOURCES, areas, strict=True)])
