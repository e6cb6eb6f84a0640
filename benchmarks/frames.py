"""Frame times during motion, in headless Chromium at 1280×720: every step of every deck.

A requestAnimationFrame loop in the page records every frame's timestamp. The benchmark walks each
deck from its first step to its last with → at a presenter's pace (a key, then WINDOW ms for the
step's motion to play out), and for each key takes the deltas between consecutive frames from the
key until the motion is over (WINDOW ms). A step within a slide and a change of slide (the
overlapping slide change and its travelling objects) are tabled apart. Target (issue 33): at least
95 % of frames ≤ 20 ms apart, none over 50 ms. Run with ``make bench``; asserts nothing.
"""

from __future__ import annotations

from itertools import pairwise

from _serve import chromium, percentile, serving, settled, verdict

DECKS = ["attention-step-by-step", "attention-walkthrough", "real-heads", "deepseek-attention"]
WINDOW = 1400  # ms after a key: the longest motion (a slide change, then its travellers) is over
SMOOTH_MS, WORST_MS, SHARE = 20.0, 50.0, 0.95

PROBE = """() => {
  const fr = window.__fr = { times: [] };
  const tick = (t) => { fr.times.push(t); requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}"""

POSITION = """() => location.hash"""


def walk(page, base: str, deck: str, limit: int | None = None) -> list[dict]:
    """Every step after the first, one key each (``limit``: only that many), with its frames' deltas."""
    page.goto(f"{base}/talk/{deck}")
    page.wait_for_selector("#player.ready", state="attached")
    page.wait_for_load_state("networkidle")
    page.evaluate(PROBE)
    page.wait_for_timeout(500)
    samples, last = [], page.evaluate(POSITION)
    while True:
        key_at = page.evaluate("() => performance.now()")
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(WINDOW)
        now = page.evaluate(POSITION)
        if now == last or (limit is not None and len(samples) >= limit):
            return samples
        times = page.evaluate("(t0) => window.__fr.times.filter((t) => t >= t0)", key_at)
        deltas = [b - a for a, b in pairwise(times)]
        slide_change = last.split("/")[1] != now.split("/")[1]
        samples.append({"step": now, "slide": slide_change, "deltas": deltas})
        last = now


def row(label: str, samples: list[dict]) -> tuple[str, bool]:
    deltas = [d for s in samples for d in s["deltas"]]
    if not deltas:
        return f"{label:42} {'—':>7}", True
    smooth = sum(d <= SMOOTH_MS for d in deltas) / len(deltas)
    worst = max(deltas)
    where = max(samples, key=lambda s: max(s["deltas"], default=0))["step"]
    ok = smooth >= SHARE and worst <= WORST_MS
    return (f"{label:42} {len(deltas):7d} {100 * smooth:8.1f} % {percentile(deltas, 99):8.1f} {worst:8.1f}"
            f"  {where:10} {verdict(ok)}"), ok


def main() -> None:
    with serving() as (base, _), chromium() as browser:
        settled(base)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        print(f"\nFrames during motion, 1280×720 (target: ≥ {SHARE:.0%} of frames ≤ {SMOOTH_MS:.0f} ms apart, "
              f"none over {WORST_MS:.0f} ms)")
        print(f"{'deck, change':42} {'frames':>7} {'≤ 20 ms':>10} {'p99 ms':>8} {'max ms':>8}  {'worst at':10}")
        for deck in DECKS:
            samples = walk(page, base, deck)
            for label, part in ((f"{deck}, step in a slide", [s for s in samples if not s["slide"]]),
                                (f"{deck}, slide change", [s for s in samples if s["slide"]])):
                print(row(label, part)[0])


if __name__ == "__main__":
    main()
