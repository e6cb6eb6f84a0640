"""Chapter 2, "The walkthrough" (deck ``attention-walkthrough``)."""

from attention_talk.frames.kit.chapter import Chapter

CHAPTER = Chapter(
    name="walkthrough",
    presets=("deepseek-v3.2",),
    needs="the walkthrough's designed inputs (attention_talk.frames.walkthrough.inputs); only the deck's seed "
          "and preset are read from the deck")
