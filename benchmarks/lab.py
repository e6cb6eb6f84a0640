"""The lab, key-to-paint: from the last key stroke of a new sentence to its updated map painted, in
headless Chromium against ``attention-talk serve`` on loopback, for a 16-token sentence on the
illustrative source and on the real model (loaded and warmed up first; every measured sentence is
new, so the model runs it: no cached answer).

Each sample: the sentence minus its last letter is typed and drawn first; then the last letter is
pressed and the page records (performance.now) the keydown (capture phase), the lab's "labpainted"
event (the DOM holds the new map), and a task posted from the next animation frame (that frame has
been painted). Resource Timing says where the time goes: when the request left (after the typing
debounce), its own time (request start to response end), and when its answer was in. Timing starts
once the server's start-up work is over (the model loaded, every deck built). Run with
``make bench``; prints a table, asserts nothing.
"""

from __future__ import annotations

import statistics
from urllib.parse import quote

from _serve import chromium, percentile, serving, settled, verdict

SAMPLES = 25
TARGETS = {"illustrative": 50.0, "model": 100.0}  # ms, p95 (issue 14; the model's from issue 33)
BASE = "the old dog sat by the warm fire while the cat watched from a quiet"  # 15 words, 15 model tokens
LAST = ["garden", "window", "kitchen", "corner", "shelf", "roof", "chair", "table", "river", "forest", "street",
        "bridge", "tower", "market", "meadow", "harbour", "valley", "island", "castle", "church", "station",
        "library", "school", "office", "museum", "theatre", "attic", "balcony", "porch"]

PROBE = """() => {
  const root = document.getElementById("lab");
  const kp = window.__kp = { samples: [], key: null };
  window.addEventListener("keydown", () => { kp.key = performance.now(); }, { capture: true });
  root.addEventListener("labpainted", () => {
    if (kp.key === null) return;
    const key = kp.key, drawn = performance.now();
    kp.key = null;
    const fetched = performance.getEntriesByType("resource").filter((e) => e.name.includes("/api/")).pop();
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => kp.samples.push({ drawn: drawn - key, painted: performance.now() - key,
        request: fetched ? fetched.responseEnd - fetched.requestStart : null,
        sent: fetched ? fetched.startTime - key : null, answered: fetched ? fetched.responseEnd - key : null,
        tokens: document.querySelectorAll("#lab-tokens li").length });
      channel.port2.postMessage(null);
    });
  });
}"""

# Resolves once the lab has drawn the state in the URL whose query contains `want` (polled: the
# page's CSP forbids wait_for_function's eval).
PAINTED = """(want) => new Promise((resolve, reject) => {
  const until = performance.now() + 60000;
  const poll = () => {
    const el = document.getElementById("lab"), p = el.dataset.painted || "";
    if (el.getAttribute("aria-busy") === "false" && p === location.search && p.includes(want)) resolve();
    else if (performance.now() > until) reject(new Error("not painted: " + want));
    else setTimeout(poll, 2);
  };
  poll();
})"""

SAMPLED = """(n) => new Promise((resolve, reject) => {
  const until = performance.now() + 60000;
  const poll = () => window.__kp.samples.length >= n ? resolve()
    : performance.now() > until ? reject(new Error("no paint")) : setTimeout(poll, 2);
  poll();
})"""


def measure(page, base: str, source: str) -> list[dict]:
    page.goto(f"{base}/lab?text={quote(BASE + ' porch')}&source={source}")
    page.evaluate(PAINTED, "porch")
    page.evaluate(PROBE)
    box = page.locator("#lab-text")
    for i, word in enumerate(LAST[:SAMPLES]):
        box.fill(f"{BASE} {word[:-1]}")
        page.evaluate(PAINTED, quote(word[:-1]))
        page.evaluate("() => { window.__kp.key = null; }")
        box.press(word[-1])
        page.evaluate(SAMPLED, i + 1)
    return page.evaluate("window.__kp.samples")


def row(name: str, values: list[float], target: float | None) -> str:
    p95 = percentile(values, 95)
    goal = f"{verdict(p95 <= target)} (≤ {target:.0f} ms)" if target else ""
    return f"| {name} | {statistics.median(values):.1f} ms | {p95:.1f} ms | {max(values):.1f} ms | {goal} |"


def main() -> None:
    with serving(env={"ATTENTION_TALK_ACCESS_LOG": "false"}) as (base, _), chromium() as browser:
        settled(base)  # the model loaded and the decks built: no start-up work shares the cores
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        results = {source: measure(page, base, source) for source in ("illustrative", "model")}
    print(f"## The lab: last key stroke to the updated map painted ({SAMPLES} new 16-token sentences per "
          "source, headless Chromium, loopback, 1280×720)\n")
    print("| source · from the keydown to | p50 | p95 | max | target p95 |")
    print("| --- | ---: | ---: | ---: | --- |")
    for source, samples in results.items():
        tokens = sorted({s["tokens"] for s in samples})
        print(row(f"{source} ({'/'.join(map(str, tokens))} tokens) · map painted", [s["painted"] for s in samples],
                  TARGETS[source]))
        print(row(f"{source} · the request sent (debounce, state, URL)", [s["sent"] for s in samples], None))
        print(row(f"{source} · the request's own time (server + transfer)", [s["request"] for s in samples], None))
        print(row(f"{source} · the answer in (then: draw, next frame, paint)", [s["answered"] for s in samples], None))
    print()


if __name__ == "__main__":
    main()
