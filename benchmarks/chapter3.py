"""Chapter 3's frames ("What real heads do", slides/real-heads.yaml): how long the deck takes to build
from the real model on first request. Run with ``make bench``; prints a table, never asserts.

    load model       the weights, once per process (shared with /api/model)
    runs + measures  the two model runs (the sentence; a random sequence repeated twice) and the
                     three head measures over every head: the analysis every builder reads
    frames, cold     build_deck_frames with nothing cached (includes the runs and measures)
    frames, warm     build_deck_frames again (runs cached: the frames and derivations alone)
"""

from __future__ import annotations

import time

from attention_talk.frames import build_deck_frames, load_deck
from attention_talk.frames.real_heads.analysis import analyse
from attention_talk.model import ModelMissing, loader
from attention_talk.paths import data_dir


def timed(fn) -> tuple[float, float, object]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - start, time.process_time() - cpu, out


def main() -> None:
    try:
        load = timed(loader().model)
    except ModelMissing as exc:
        print(f"benchmarks/chapter3.py: skipped, {exc}")
        return
    model = load[2]
    deck = load_deck(data_dir("slides") / "real-heads.yaml")
    analyse.cache_clear()
    model.clear_cache()
    runs = timed(lambda: analyse(model, deck.story.sentence, deck.story.seed))
    analyse.cache_clear()
    model.clear_cache()
    cold = timed(lambda: build_deck_frames(deck, model))
    warm = timed(lambda: build_deck_frames(deck, model))
    steps = sum(len(f) for f in cold[2].values())
    print(f"chapter 3 frames ({steps} steps, {len(deck.slides)} slides)")
    print("| what             |       wall |        CPU |")
    print("|------------------|------------|------------|")
    for what, t in (("load model", load), ("runs + measures", runs), ("frames, cold", cold), ("frames, warm", warm)):
        print(f"| {what:<16} | {t[0] * 1e3:7.0f} ms | {t[1] * 1e3:7.0f} ms |")


if __name__ == "__main__":
    main()
