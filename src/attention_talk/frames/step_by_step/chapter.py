"""Chapter 1, "Attention step by step" (deck ``attention-step-by-step``)."""

from attention_talk.frames.kit.chapter import Chapter

CHAPTER = Chapter(
    name="step-by-step",
    presets=("deepseek-v3.2",),
    needs="the deck's story sentence and focus word, and a preset whose head width the story model is "
          "built for (deepseek-v3.2)")
