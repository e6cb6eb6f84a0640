"""Frames: (deck, slide, step) → everything the player draws, computed by the engine.

Pure and deterministic: the same deck gives the same frames. The web app computes every frame once
at start-up and serves them from memory.
"""

from __future__ import annotations

from attention_talk.deck import Deck
from attention_talk.frames import chapter1, chapter2  # noqa: F401  (registers builders)
from attention_talk.frames.context import BuildContext
from attention_talk.frames.model import Frame, FrameBody
from attention_talk.frames.registry import BUILDERS

__all__ = ["BUILDERS", "Frame", "build_deck_frames", "build_frame"]


def build_frame(ctx: BuildContext, slide_index: int, step_index: int) -> Frame:
    """The frame of one step (indices 0-based)."""
    deck = ctx.deck
    slide = deck.slides[slide_index]
    step = slide.steps[step_index]
    body = FrameBody()
    if step.frame is not None:
        b = BUILDERS[step.frame.builder]
        body = b.func(ctx, b.params_model.model_validate(step.frame.params))
    return Frame(**dict(body), deck=deck.id, slide=slide.id, slide_number=slide_index + 1,
                 step=step_index + 1, steps=len(slide.steps), caption=step.caption,
                 narration=step.narration, builder=step.frame.builder if step.frame else None)


def build_deck_frames(deck: Deck) -> dict[str, list[Frame]]:
    """Every frame of a deck, keyed by slide id."""
    ctx = BuildContext(deck)
    return {slide.id: [build_frame(ctx, i, j) for j in range(len(slide.steps))]
            for i, slide in enumerate(deck.slides)}
