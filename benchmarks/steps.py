"""Key-to-paint per step, for one deck, at a presenter's pace: which steps are slow, and why.

Walks the deck with → (a key every PACE ms, as benchmarks/keypaint.py's calm rows) and prints each
step's key → drawn ("framedrawn") and key → painted, the slowest first (top 15). With ``--steps
9/3,15/1`` only those steps are measured (each opened from the step before it, by its URL, then →),
``--repeat`` times; with ``--trace`` each of them is traced too (Chrome's devtools timeline) and the
main thread's time between the key and the paint is summed by event (script, style, layout, paint),
with the number of elements whose style was recalculated. Tracing slows style recalculation
severalfold, so ``--phases`` splits each step's wall time without it: the frame's style and layout
are forced at the start of the animation frame that shows the step (work the frame does anyway, only
timed apart), and what is left until the paint is the paint and the commit. Asserts nothing; for
finding costs.

    python benchmarks/steps.py attention-step-by-step
    python benchmarks/steps.py attention-step-by-step --steps 15/1,12/1 --repeat 5 --trace
    python benchmarks/steps.py DECK --phases   # every step: script, style, layout, paint (p50 and the slowest)
    python benchmarks/steps.py DECK --base http://127.0.0.1:8771   # a server already running
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
from collections import defaultdict

from _serve import chromium, serving, settled
from keypaint import PROBE, TOTAL, WAIT, open_player

PACE = 1500
TOP = 15
# --phases: the same key-to-paint probe as keypaint.py's, with the frame's style and layout forced
# (and timed) at the start of the animation frame that shows the step.
PHASES = """() => {
  const kp = window.__kp = { samples: [], key: null };
  window.addEventListener("keydown", () => { kp.key = performance.now(); }, { capture: true });
  document.getElementById("player").addEventListener("framedrawn", () => {
    if (kp.key === null) return;
    const key = kp.key, drawn = performance.now();
    kp.key = null;
    requestAnimationFrame(() => {
      const frame = performance.now();
      getComputedStyle(document.body).color;
      const styled = performance.now();
      void document.body.offsetWidth;
      const laid = performance.now();
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const end = performance.now();
        kp.samples.push({ drawn: drawn - key, wait: frame - drawn, style: styled - frame, layout: laid - styled,
                          paint: end - laid, painted: end - key });
      };
      channel.port2.postMessage(null);
    });
  });
}"""
PARTS = ("drawn", "wait", "style", "layout", "paint", "painted")
CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing"
# Timeline events worth summing (the main thread's work of one frame).
EVENTS = ("EventDispatch", "FunctionCall", "EvaluateScript", "UpdateLayoutTree", "Layout",
          "PrePaint", "Paint", "Layerize", "UpdateLayer", "CompositeLayers", "HitTest",
          "ParseHTML", "RunMicrotasks", "TimerFire", "FireAnimationFrame")


def press(page, i: int) -> dict:
    """→ held down until the step is painted, as keypaint.py holds it (the URL is written after)."""
    page.keyboard.down("ArrowRight")
    page.evaluate(WAIT, i)
    page.keyboard.up("ArrowRight")
    sample = page.evaluate("window.__kp.samples")[i]
    return {**sample, "step": page.evaluate("location.hash")}


def walk(browser, page, pace: int, trace: bool, phases: bool = False) -> list[dict]:
    if phases:
        page.evaluate(PHASES)
    else:
        page.evaluate(PROBE, "ours")
    samples = []
    total = page.evaluate(TOTAL)
    for i in range(total - 1):
        sample, cost = traced(browser, page, i) if trace else (press(page, i), {})
        samples.append({**sample, "cpu": cost.get("main CPU", 0)})
        page.wait_for_timeout(pace)
    return samples


def previous(page, step: str) -> str:
    """The hash of the step before ``step`` ("15/1" → the last step of slide 14)."""
    slide, n = (int(x) for x in step.split("/"))
    if n > 1:
        return f"#/{slide}/{n - 1}"
    steps = page.evaluate(f"window.attentionTalk.player.slides[{slide - 2}].steps")
    return f"#/{slide - 1}/{steps}"


def summarize(events: list[dict], t0: float, t1: float) -> dict[str, float]:
    """CPU milliseconds of each timeline event on the renderer main thread in [t0, t1] (µs trace
    clock; thread time, not wall time: on a shared machine the thread waits for a core), their
    sum over the thread's tasks ("main CPU"), and the elements whose style was recalculated."""
    main = {(e["pid"], e["tid"]) for e in events if e.get("name") == "thread_name"
            and e.get("args", {}).get("name") == "CrRendererMain"}
    out: dict[str, float] = defaultdict(float)
    for e in events:
        if (e.get("pid"), e.get("tid")) not in main or e.get("ph") != "X" or not t0 <= e["ts"] <= t1:
            continue
        if e["name"] in EVENTS:
            out[e["name"]] += e.get("tdur", e.get("dur", 0)) / 1000
        if e["name"] == "RunTask":
            out["main CPU"] += e.get("tdur", e.get("dur", 0)) / 1000
        if e["name"] == "UpdateLayoutTree":
            out["elements restyled"] += e.get("args", {}).get("elementCount", 0) or 0
        if e["name"] == "Layout":
            out["layout objects"] += (e.get("args", {}).get("beginData", {}) or {}).get("dirtyObjects", 0) or 0
    return out


def traced(browser, page, i: int) -> tuple[dict, dict]:
    browser.start_tracing(page=page, categories=CATEGORIES.split(","))
    sample = press(page, i)
    page.wait_for_timeout(100)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    keys = [e["ts"] for e in events if e.get("name") == "EventDispatch"
            and e.get("args", {}).get("data", {}).get("type") == "keydown"]
    t0 = keys[0] if keys else min(e["ts"] for e in events if "ts" in e)
    return sample, summarize(events, t0, t0 + sample["painted"] * 1000)


def chosen(browser, base: str, deck: str, steps: list[str], repeat: int, trace: bool) -> None:
    context, page = open_player(browser, base, deck=deck)
    page.wait_for_load_state("networkidle")
    page.evaluate(PROBE, "ours")
    i = 0
    for step in steps:
        painted, drawn, costs = [], [], defaultdict(list)
        for _ in range(repeat):
            page.evaluate(f"location.hash = {json.dumps(previous(page, step))}")
            page.wait_for_timeout(PACE)
            sample, cost = traced(browser, page, i) if trace else (press(page, i), {})
            i += 1
            painted.append(sample["painted"])
            drawn.append(sample["drawn"])
            for k, v in cost.items():
                costs[k].append(v)
        print(f"{step:8} painted p50 {statistics.median(painted):7.1f} ms  min {min(painted):7.1f}  "
              f"drawn p50 {statistics.median(drawn):6.1f} ms   ({', '.join(f'{p:.0f}' for p in painted)})")
        for k in sorted(costs, key=lambda k: -statistics.median(costs[k])):
            print(f"           {k:20} {statistics.median(costs[k]):8.1f}")
    context.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("deck")
    parser.add_argument("--steps", help="e.g. 15/1,12/1: only these, each from the step before it")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trace", action="store_true")
    parser.add_argument("--phases", action="store_true", help="split each step's time: script, style, layout, paint")
    parser.add_argument("--base", help="a server already running (default: start one)")
    parser.add_argument("--pace", type=int, default=PACE)
    args = parser.parse_args()
    with (contextlib.nullcontext((args.base, 0)) if args.base else serving()) as (base, _), chromium() as browser:
        if not args.base:
            settled(base)
        if args.steps:
            chosen(browser, base, args.deck, args.steps.split(","), args.repeat, args.trace)
            return
        context, page = open_player(browser, base, deck=args.deck)
        page.wait_for_load_state("networkidle")
        samples = walk(browser, page, args.pace, args.trace and not args.phases, args.phases)
        context.close()
    if args.phases:
        print_phases(args.deck, samples)
        return
    painted = [s["painted"] for s in samples]
    print(f"{args.deck}: {len(samples)} steps, painted p50 {statistics.median(painted):.1f} ms, "
          f"max {max(painted):.1f} ms")
    if args.trace:
        cpu = [s["cpu"] for s in samples]
        print(f"main thread CPU from key to paint: p50 {statistics.median(cpu):.1f} ms, sum {sum(cpu):.0f} ms")
    for s in sorted(samples, key=lambda s: -(s["cpu"] if args.trace else s["painted"]))[:TOP]:
        print(f"{s['step']:10} drawn {s['drawn']:7.1f} ms  painted {s['painted']:7.1f} ms  main CPU {s['cpu']:6.1f} ms")


def print_phases(deck: str, samples: list[dict]) -> None:
    """One row per step, the slowest first, and the p50 of each part: script (key → the step's DOM
    drawn), wait (→ this probe's animation-frame callback: it holds the callbacks registered before
    it, and views/continuity.js aims a slide change's travellers in one, which forces the style and
    layout there, so those steps show them under wait), style, layout, paint (and commit) → painted."""
    print(f"## {deck}: where a step's time goes ({len(samples)} steps, a key every {PACE} ms)\n")
    print("| step | " + " | ".join(PARTS) + " |")
    print("| --- |" + " ---: |" * len(PARTS))
    print("| p50 | " + " | ".join(f"{statistics.median(s[k] for s in samples):.1f}" for k in PARTS) + " |")
    for s in sorted(samples, key=lambda s: -s["painted"])[:TOP]:
        print(f"| {s['step']} | " + " | ".join(f"{s[k]:.1f}" for k in PARTS) + " |")


if __name__ == "__main__":
    main()
