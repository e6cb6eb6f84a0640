"""Chapter 4, "How DeepSeek-V3.2 makes attention cheap" (deck ``deepseek-attention``)."""

from attention_talk.frames.kit.chapter import Chapter

CHAPTER = Chapter(
    name="deepseek",
    presets=("deepseek-v3.2",),
    needs="the chapter's seeded small-width MLA and DSA inputs (attention_talk.frames.deepseek.inputs) and the "
          "deck's sentence (its tokens label the rows), seed and focus word")
