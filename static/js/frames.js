// Fetches the frames of every slide once: the first slide's at once, the others in the background
// once the page is painted and whole (prefetch), so that stepping never waits on the network and the first paint
// waits for no more than it shows. The cells' derivations (most of the bytes) come separately,
// per slide, when a derivation panel needs them (derivations). A frame is handed out only once the
// views of its widget kinds are loaded (views/widget-views.js), so whoever draws a frame it gets
// (peek, load) draws it at once; load(slide, step) waits for that step's views alone (a link to a
// slide's first step does not wait for a view only a later step of it draws), load(slide) for all.
// A step opened by its link is fetched alone first (loadStep: its own frame, not its slide's), so
// the first paint waits for no other step's bytes; its slide's frames come with the prefetch.
import { fetchJson } from "./lib/fetch-json.js";
import { framesUrl, staticSite } from "./lib/site.js";
import { loadWidgetViews, viewsLoaded } from "./views/widget-views.js";

export class FrameStore {
  constructor(deckId, slides) {
    this.deckId = deckId;
    this.slides = slides;
    this.loaded = new Map(); // slide id → its frames (fetched; each handed out once its views are in)
    this.pending = new Map();
    this.parts = new Map(); // slide id → Promise of its SlideDerivations steps
    this.alone = new Map(); // "slide/step" → Promise of that step's frame, fetched before its slide (loadStep)
    this.steps = new Map(); // "slide/step" → that frame, once fetched
  }
  url(slideId) {
    return framesUrl(this.deckId, slideId);
  }
  /** A Promise of the slide's frames, once the views of `step`'s frame (1-based; null: of every
   * step) are loaded. */
  load(slideId, step = null) {
    const alone = step === null || this.pending.has(slideId) ? null : this.alone.get(`${slideId}/${step}`);
    if (alone) return alone.then((frame) => loadWidgetViews([frame]).then(() => [frame]));
    if (!this.pending.has(slideId)) {
      const p = fetchJson(this.url(slideId), { headers: { Accept: "application/json" } })
        .catch((err) => { throw new Error(`frames for ${slideId}: ${err.message}`); })
        .then((data) => { this.loaded.set(slideId, data.frames); return data.frames; })
        .catch((err) => { this.pending.delete(slideId); throw err; });
      this.pending.set(slideId, p);
    }
    return this.pending.get(slideId).then((frames) => {
      const wanted = step === null ? frames : frames.slice(step - 1, step);
      return loadWidgetViews(wanted).then(() => frames);
    });
  }
  /** Like load(slideId, step), but fetching that step's frame alone when the slide has others (not
   * on a static site, which holds whole slides only): a Promise of [that frame] then. A later
   * load(slideId) fetches the whole slide. */
  loadStep(slideId, step) {
    const key = `${slideId}/${step}`;
    const several = (this.slides.find((s) => s.id === slideId)?.steps ?? 1) > 1;
    if (several && !staticSite && !this.pending.has(slideId) && !this.alone.has(key)) {
      const p = fetchJson(framesUrl(this.deckId, slideId, `frames/${step}`), { headers: { Accept: "application/json" } })
        .catch((err) => { throw new Error(`frame ${step} of ${slideId}: ${err.message}`); })
        .then((data) => { this.steps.set(key, data.frame); return data.frame; })
        .catch((err) => { this.alone.delete(key); throw err; });
      this.alone.set(key, p);
    }
    return this.load(slideId, step);
  }
  /** Load `first` now (the views of its `step`; null: of every step), then every slide, with every
   * view, in the background once `after` settles (by default: once the first is painted). */
  prefetch(first, after = null, step = null) {
    const firstLoad = step === null ? this.load(first) : this.loadStep(first, step);
    firstLoad.catch(() => {}); // a failure is the stage's to say (each load is its own promise)
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
  /** The frame if it is already here and its views are loaded, else null. */
  peek(slideId, step) {
    const frame = this.loaded.get(slideId)?.[step - 1] ?? this.steps.get(`${slideId}/${step}`);
    return frame && viewsLoaded(frame) ? frame : null;
  }
}
