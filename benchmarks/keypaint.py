"""Key-to-paint in headless Chromium: from a key press to the next painted frame of the new step.

For each of 50 presses (→ through the talk, ← back when it ends) the page records, with
performance.now(): the keydown reaching the window (capture phase, before any handler); the
player's "framedrawn" event (the DOM holds the new step); the requestAnimationFrame after it (the
frame that will show it begins); and a task posted from that callback, which runs once that frame
has been painted. Run with ``make bench``; prints a table, asserts nothing.
"""

from __future__ import annotations

import statistics

from _serve import chromium, percentile, serving, verdict

DECK = "attention-step-by-step"
PRESSES = 50
TARGET_P95 = 1000 / 60  # ms: one frame at 60 Hz

PROBE = """() => {
  const root = document.getElementById("player");
  const kp = window.__kp = { samples: [], key: null };
  window.addEventListener("keydown", () => { kp.key = performance.now(); }, { capture: true });
  root.addEventListener("framedrawn", () => {
    if (kp.key === null) return;
    const key = kp.key, drawn = performance.now();
    kp.key = null;
    requestAnimationFrame(() => {
      const frame = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => kp.samples.push({ drawn: drawn - key, frame: frame - key,
                                                        painted: performance.now() - key });
      channel.port2.postMessage(null);
    });
  });
}"""

# Polled from a page function: the page's CSP (no 'unsafe-eval') forbids wait_for_function.
WAIT = """(n) => new Promise((resolve, reject) => {
  const until = performance.now() + 10000;
  const poll = () => window.__kp.samples.length > n ? resolve()
    : performance.now() > until ? reject(new Error("no frame drawn")) : setTimeout(poll, 5);
  poll();
})"""


def main() -> None:
    with serving() as (base, _), chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{base}/talk/{DECK}")
        page.wait_for_selector("#player.ready", state="attached")
        page.wait_for_load_state("networkidle")  # every slide's frames prefetched
        page.evaluate(PROBE)
        total = page.evaluate("window.attentionTalk.player.slides.reduce((n, s) => n + s.steps, 0)")
        key, position = "ArrowRight", 1
        for i in range(PRESSES):
            if position == total:
                key = "ArrowLeft"
            elif position == 1:
                key = "ArrowRight"
            position += 1 if key == "ArrowRight" else -1
            page.keyboard.press(key)
            page.evaluate(WAIT, i)
        samples = page.evaluate("window.__kp.samples")
    print(f"## Key-to-paint in headless Chromium ({PRESSES} presses of → / ← over {total} steps, "
          "1280×720)\n")
    print("| from the keydown to | p50 | p95 | max | target p95 < 16.7 ms |")
    print("| --- | ---: | ---: | ---: | --- |")
    for name, field in (("the new step drawn in the DOM (framedrawn)", "drawn"),
                        ("the next animation frame begins (rAF)", "frame"),
                        ("that frame painted (task after rAF)", "painted")):
        values = [s[field] for s in samples]
        p95 = percentile(values, 95)
        target = verdict(p95 < TARGET_P95) if field == "painted" else ""
        print(f"| {name} | {statistics.median(values):.2f} ms | {p95:.2f} ms | {max(values):.2f} ms | {target} |")
    print()


if __name__ == "__main__":
    main()
