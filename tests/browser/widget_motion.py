"""Page probes shared by the widget kinds' browser tests: a widget's markup, waiting until nothing
animates, how many animations a widget runs, and a watcher that presses a key the moment a widget
starts to move (mid-motion)."""

WIDGET_HTML = "(id) => document.querySelector(`.slide.active .widget[data-widget='${id}']`)?.innerHTML ?? ''"
# Resolves once nothing animates on the page any more (10 s at most: then returns how many still run).
STILL = """async () => {
  const t0 = performance.now();
  const moving = () => document.getAnimations().filter((a) => a.playState === 'running' || a.pending).length;
  while (moving() && performance.now() - t0 < 10000) await new Promise((r) => requestAnimationFrame(r));
  return moving();
}"""
RUNNING = ("(id) => document.querySelector(`.slide.active .widget[data-widget='${id}']`)"
           ".getAnimations({subtree: true}).length")
# Watches, in the page, each animation frame for 10 s at most, until the widget moves; then, if
# `key` is given, presses it there and then (mid-motion). Start it before the key that steps.
WATCH = """([id, key]) => { window.__moved = new Promise((resolve) => {
  const t0 = performance.now();
  const tick = () => {
    const w = document.querySelector(`.slide.active .widget[data-widget='${id}']`);
    const n = w ? w.getAnimations({subtree: true}).length : 0;
    if (n > 0) {
      if (key) document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true}));
      resolve(n);
    } else if (performance.now() - t0 > 10000) resolve(0); else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}); }"""


def open_at(browser, base: str, deck: str, hash_: str, motion: str):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, reduced_motion=motion)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(f"{base}/talk/{deck}{hash_}", timeout=300_000)
    page.wait_for_selector("#player.ready", state="attached", timeout=300_000)
    page.wait_for_selector(".slide.active .widget svg", timeout=300_000)
    return ctx, page, errors


def frame_data(page, base: str, deck: str, slide: int, step: int) -> dict:
    manifest = page.request.get(f"{base}/api/decks/{deck}").json()
    slide_id = manifest["slides"][slide - 1]["id"]
    frames = page.request.get(f"{base}/api/decks/{deck}/slides/{slide_id}/frames").json()["frames"]
    (w,) = frames[step - 1]["widgets"]
    return w["data"]


# Before any page script: every Web Animation started, with its target, so a test can tell which
# motions a step started without racing them (on a loaded machine a 600 ms phase may be over before
# the test looks).
RECORD = """window.__started = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  const a = animate.apply(this, args);
  window.__started.push([a, this]);
  return a;
};"""
