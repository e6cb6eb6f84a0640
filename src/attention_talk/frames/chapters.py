"""The chapters the talk knows, listed explicitly. Adding a chapter: a new package under
``frames/`` that makes a ``Chapter``, and one line here."""

from __future__ import annotations

from attention_talk.frames.deepseek import CHAPTER as DEEPSEEK
from attention_talk.frames.kit.chapter import Builder, Chapter
from attention_talk.frames.real_heads import CHAPTER as REAL_HEADS
from attention_talk.frames.step_by_step import CHAPTER as STEP_BY_STEP
from attention_talk.frames.walkthrough import CHAPTER as WALKTHROUGH

CHAPTERS: tuple[Chapter, ...] = (STEP_BY_STEP, WALKTHROUGH, REAL_HEADS, DEEPSEEK)


def _all_builders() -> dict[str, Builder]:
    out: dict[str, Builder] = {}
    for chapter in CHAPTERS:
        for name, b in chapter.builders.items():
            if name in out:
                raise ValueError(f"frame builder {name!r} is in chapters {out[name].chapter!r} and {chapter.name!r}")
            out[name] = b
    return out


BUILDERS: dict[str, Builder] = _all_builders()
