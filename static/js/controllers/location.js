// The URL hash #/<slide>/<step> (1-based) follows the player; loading it opens that step.
// A new slide gets a history entry (Back returns to the previous slide); steps replace it.
import { Controller } from "./controller.js";

const GAP = 300; // ms: the least time between two writes of the URL while stepping

export function parseHash(hash) {
  const m = /^#\/(\d+)(?:\/(\d+))?\/?$/.exec(hash || "");
  return m ? { slide: Number(m[1]), step: Number(m[2] || 1) } : null;
}

export class LocationController extends Controller {
  constructor(player) {
    super(player);
    this._onPop = () => this.restore();
    this.pending = false; // a URL write waits for the step's paint (later)
    this.push = false;
    this.written = -Infinity; // when the URL was last written (performance.now())
    this.seen = location.hash; // the hash as this controller last wrote or read it
  }
  bind() {
    super.bind();
    window.addEventListener("popstate", this._onPop);
    window.addEventListener("hashchange", this._onPop);
    return this;
  }
  unbind() {
    super.unbind();
    window.removeEventListener("popstate", this._onPop);
    window.removeEventListener("hashchange", this._onPop);
  }
  restore() {
    this.seen = location.hash;
    const target = parseHash(location.hash);
    if (target) this.player.go(target.slide, target.step, { source: "location" });
  }
  update(state, { previous, source }) {
    // Where the URL itself or the start-up said so, it is put right at once (not a key's path).
    if (source === "location" || source === "start") { this.write(state, false); return; }
    this.push ||= previous.slide !== state.slide;
    this.later();
  }

  /** A step's URL is written once that step is painted, and at most every GAP ms: writing the
   * history is a same-document navigation that costs the browser more than drawing the step
   * (reveal.js writes it at most once a second). Steps in between are folded into one write; a
   * hidden page, which paints no frames, writes it on the timer. */
  later() {
    if (this.pending) return;
    this.pending = true;
    const run = () => {
      if (!this.pending) return;
      this.pending = false;
      // Someone else changed the URL meanwhile (its hashchange or popstate is on the way): it wins.
      if (location.hash !== this.seen) { this.push = false; return; }
      this.written = performance.now();
      const push = this.push;
      this.push = false;
      this.write(this.player.state, push);
    };
    const wait = Math.max(0, this.written + GAP - performance.now());
    if (wait === 0) requestAnimationFrame(() => setTimeout(run));
    setTimeout(run, wait || 250);
  }

  /** A new slide gets a history entry (`push`); anything else replaces the current one. */
  write(state, push) {
    const hash = `#/${state.slide}/${state.step}`;
    this.seen = hash;
    if (location.hash === hash) return;
    if (push && parseHash(location.hash)?.slide !== state.slide) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
  }
}
