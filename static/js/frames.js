// Fetches the frames of every slide once (prefetch), so that stepping never waits on the network.
import { framesUrl } from "./lib/site.js";

export class FrameStore {
  constructor(deckId, slides) {
    this.deckId = deckId;
    this.slides = slides;
    this.loaded = new Map();
    this.pending = new Map();
  }
  url(slideId) {
    return framesUrl(this.deckId, slideId);
  }
  load(slideId) {
    if (!this.pending.has(slideId)) {
      const p = fetch(this.url(slideId), { headers: { Accept: "application/json" } })
        .then((r) => {
          if (!r.ok) throw new Error(`frames for ${slideId}: HTTP ${r.status}`);
          return r.json();
        })
        .then((data) => { this.loaded.set(slideId, data.frames); return data.frames; })
        .catch((err) => { this.pending.delete(slideId); throw err; });
      this.pending.set(slideId, p);
    }
    return this.pending.get(slideId);
  }
  /** Load `first` now, then every other slide in the background. */
  prefetch(first) {
    const firstLoad = this.load(first);
    firstLoad.finally(() => {
      for (const s of this.slides) this.load(s.id).catch(() => {});
    }).catch(() => {});
    return firstLoad;
  }
  /** The frame if it is already here, else null. */
  peek(slideId, step) {
    const frames = this.loaded.get(slideId);
    return frames ? frames[step - 1] : null;
  }
}
