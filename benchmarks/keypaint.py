"""Key-to-paint in headless Chromium: from a key press to the next painted frame of the new step.

For each of 50 presses (→ through the talk, ← back when it ends; each key held down until its step
is painted, as a hand holds a key for about 100 ms, and in a second row of ours released at once,
as a clicker does: the player writes a held key's URL after the paint) the page records, with
performance.now(): the keydown reaching the window (capture phase, before any handler); the
player's "framedrawn" event (the DOM holds the new step); the requestAnimationFrame after it (the
frame that will show it begins); and a task posted from that callback, which runs once that frame
has been painted. The same harness then runs on a reveal.js 5 anchor deck (13 slides, 39
fragments, from the npm dev dependency; reveal_anchor.py), whose slide and fragment events stand
for "framedrawn", and the table gives the ratio. The anchor runs twice: as reveal.js is usually set
up (``hash: true``: its URL is written at most once a second) and writing its URL on every step as
attention-talk does (``history: true``). A fourth, diagnostic row runs the player with its history
writes stubbed out (the URL stays put; not a mode the player has), so the table shows what the
URL write costs apart from drawing the step. Rounds alternate the decks, so that a busy moment of
the machine falls on all of them. Run with ``make bench``; asserts nothing.
"""

from __future__ import annotations

import statistics

import reveal_anchor
from _serve import chromium, percentile, serving, verdict

DECK = "attention-step-by-step"
PRESSES = 50  # per round
ROUNDS = 3
TARGET_P95 = 1000 / 60  # ms: one frame at 60 Hz

PROBE = """(kind) => {
  const kp = window.__kp = { samples: [], key: null };
  window.addEventListener("keydown", () => { kp.key = performance.now(); }, { capture: true });
  const changed = () => {
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
  };
  if (kind === "reveal") {
    for (const e of ["slidechanged", "fragmentshown", "fragmenthidden"]) window.Reveal.on(e, changed);
  } else {
    document.getElementById("player").addEventListener("framedrawn", changed);
  }
}"""

# Polled from a page function: the page's CSP (no 'unsafe-eval') forbids wait_for_function.
WAIT = """(n) => new Promise((resolve, reject) => {
  const until = performance.now() + 10000;
  const poll = () => window.__kp.samples.length > n ? resolve()
    : performance.now() > until ? reject(new Error("no frame drawn")) : setTimeout(poll, 5);
  poll();
})"""


def run(page, total: int, kind: str, hold: bool = True) -> list[dict]:
    """PRESSES presses of → through the steps (← back from the end); one sample per press. A key is
    held down until its step is painted, as a hand holds one (about 100 ms), or, with ``hold``
    false, released at once, as a clicker does."""
    page.evaluate(PROBE, kind)
    key, position = "ArrowRight", 1
    for i in range(PRESSES):
        if position == total:
            key = "ArrowLeft"
        elif position == 1:
            key = "ArrowRight"
        position += 1 if key == "ArrowRight" else -1
        if hold:
            page.keyboard.down(key)
            page.evaluate(WAIT, i)
            page.keyboard.up(key)
        else:
            page.keyboard.press(key)
            page.evaluate(WAIT, i)
    return page.evaluate("window.__kp.samples")


# Diagnostic only: the same page with history.pushState/replaceState doing nothing.
NO_URL = "history.pushState = () => {}; history.replaceState = () => {};"


def ours(browser, base: str, url: bool = True, hold: bool = True) -> tuple[list[dict], int]:
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    if not url:
        context.add_init_script(NO_URL)
    page = context.new_page()
    page.goto(f"{base}/talk/{DECK}")
    page.wait_for_selector("#player.ready", state="attached")
    page.wait_for_load_state("networkidle")  # every slide's frames prefetched
    total = page.evaluate("window.attentionTalk.player.slides.reduce((n, s) => n + s.steps, 0)")
    samples = run(page, total, "ours", hold)
    context.close()
    return samples, total


def reveal(browser, url_mode: str) -> tuple[list[dict], int]:
    with reveal_anchor.anchor_deck(url_mode) as (url, total):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        page.wait_for_function("() => window.revealReady === true")
        samples = run(page, total, "reveal")
        page.close()
    return samples, total


RELEASED = "attention-talk, each key released at once (a clicker)"
WITHOUT_URL = "attention-talk, URL writes stubbed out (diagnostic)"
ANCHORS = {"hash": "reveal.js 5, URL at most once a second (hash: true)",
           "history": "reveal.js 5, URL on every step (history: true)"}


def main() -> None:
    anchor = reveal_anchor.available()
    results: dict[str, tuple[list[dict], int]] = {}
    with serving() as (base, _), chromium() as browser:
        for _ in range(ROUNDS):
            runs = {"attention-talk": lambda: ours(browser, base),
                    RELEASED: lambda: ours(browser, base, hold=False),
                    WITHOUT_URL: lambda: ours(browser, base, url=False)}
            if anchor:
                runs.update({ANCHORS[m]: (lambda m=m: reveal(browser, m)) for m in ANCHORS})
            for name, run_deck in runs.items():
                samples, total = run_deck()
                results[name] = (results.get(name, ([], 0))[0] + samples, total)
    print(f"## Key-to-paint in headless Chromium ({ROUNDS} rounds of {PRESSES} presses of → / ←, 1280×720, "
          "same harness; reveal.js anchor: 13 slides, 39 fragments)\n")
    print("| deck | steps | drawn p50 | frame begins p50 | painted p50 | painted p95 | painted max |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    stats = {}
    for name, (samples, total) in results.items():
        painted = [s["painted"] for s in samples]
        drawn = [s["drawn"] for s in samples]
        frame = [s["frame"] for s in samples]
        stats[name] = (statistics.median(painted), percentile(painted, 95))
        print(f"| {name} | {total} | {statistics.median(drawn):.2f} ms | {statistics.median(frame):.2f} ms | "
              f"{stats[name][0]:.2f} ms | "
              f"{stats[name][1]:.2f} ms | {max(painted):.2f} ms |")
    ours_p50, ours_p95 = stats["attention-talk"]
    bare_p50, bare_p95 = stats[WITHOUT_URL]
    print(f"\nthe player's URL write (attention-talk minus the diagnostic row): p50 {ours_p50 - bare_p50:+.2f} ms, "
          f"p95 {ours_p95 - bare_p95:+.2f} ms")
    print(f"target p95 < {TARGET_P95:.1f} ms (one frame at 60 Hz): {verdict(ours_p95 < TARGET_P95)}")
    if anchor:
        for name in ANCHORS.values():
            r50, r95 = stats[name]
            print(f"ratio attention-talk / {name}: p50 {ours_p50 / r50:.2f}×, p95 {ours_p95 / r95:.2f}× "
                  f"(target ≤ 1: {verdict(ours_p50 <= r50 and ours_p95 <= r95)})")
    else:
        print("reveal.js anchor skipped: run `npm ci` (reveal.js is a dev dependency) to compare")
    print()


if __name__ == "__main__":
    main()
