"""Chapter 1, "Attention step by step" (deck ``attention-step-by-step``).

Its builders read the story model (``inputs.py``: designed inputs at DeepSeek-V3.2's sizes) as
``ctx.story``: chapter 1's own context builds it from the deck's sentence and seed once per deck,
when a builder first reads it, so a deck of another chapter never builds it.
"""

from attention_talk.frames.build_context import BuildContext
from attention_talk.frames.kit.chapter import Chapter
from attention_talk.frames.step_by_step.inputs import StoryModel, build_story


class StoryContext(BuildContext):
    """What chapter 1's builders read: the build context and the story model."""

    @property
    def story(self) -> StoryModel:
        story = self.deck.story
        return self.cached("step-by-step.story", lambda: build_story(story.tokens, seed=story.seed))


CHAPTER = Chapter(
    name="step-by-step",
    presets=("deepseek-v3.2",),
    context=StoryContext,
    needs="the deck's story sentence and focus word, and a preset whose head width the story model is "
          "built for (deepseek-v3.2)")
