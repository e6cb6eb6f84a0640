// Fetches the frames of every slide once: the first slide's at once, the others in the background
// once the page is painted and whole (prefetch), so that stepping never waits on the network and the first paint
// waits for no more than it shows. The cells' derivations (most of the bytes) come separately,
// per slide, when a derivation panel needs them (derivations). A slide's frames are handed out only
// once the views of their widget kinds are loaded (views/widget-views.js), so whoever draws a frame
// it gets (peek, load) draws it at once.
import { fetchJson } from "./lib/fetch-json.js";
import { framesUrl } from "./lib/site.js";
import { loadWidgetViews } from "./views/widget-views.js";

export class FrameStore {
  constructor(deckId, slides) {
    this.deckId = deckId;
    this.slides = slides;
    this.loaded = new Map();
    this.pending = new Map();
    this.parts = new Map(); // slide id → Promise of its SlideDerivations steps
  }
  url(slideId) {
    return framesUrl(this.deckId, slideId);
  }
  load(slideId) {
    if (!this.pending.has(slideId)) {
      const p = fetchJson(this.url(slideId), { headers: { Accept: "application/json" } })
        .catch((err) => { throw new Error(`frames for ${slideId}: ${err.message}`); })
        .then((data) => loadWidgetViews(data.frames).then(() => data.frames))
        .then((frames) => { this.loaded.set(slideId, frames); return frames; })
        .catch((err) => { this.pending.delete(slideId); throw err; });
      this.pending.set(slideId, p);
    }
    return this.pending.get(slideId);
  }
  /** Load `first` now, then every other slide in the background once `after` settles (by default:
   * once the first is painted). */
  prefetch(first, after = null) {
    const firstLoad = this.load(first);
    const painted = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    const start = after ?? firstLoad.then(painted, painted);
    start.then(() => {
      for (const s of this.slides) this.load(s.id).catch(() => {});
    });
    return firstLoad;
  }

  /** Every derivation's parts of one slide, by step (0-based), tensor and cell; fetched once. */
  derivations(slideId) {
    if (!this.parts.has(slideId)) {
      const p = fetchJson(framesUrl(this.deckId, slideId, "derivations"), { headers: { Accept: "application/json" } })
        .catch((err) => { throw new Error(`derivations for ${slideId}: ${err.message}`); })
        .then((data) => data.steps)
        .catch((err) => { this.parts.delete(slideId); throw err; });
      this.parts.set(slideId, p);
    }
    return this.parts.get(slideId);
  }
  /** The frame if it is already here, else null. */
  peek(slideId, step) {
    const frames = this.loaded.get(slideId);
    return frames ? frames[step - 1] : null;
  }
}
