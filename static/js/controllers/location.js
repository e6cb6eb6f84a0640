// The URL hash #/<slide>/<step> (1-based) follows the player; loading it opens that step.
// A new slide gets a history entry (Back returns to the previous slide); steps replace it.
import { Controller } from "./controller.js";

export function parseHash(hash) {
  const m = /^#\/(\d+)(?:\/(\d+))?\/?$/.exec(hash || "");
  return m ? { slide: Number(m[1]), step: Number(m[2] || 1) } : null;
}

export class LocationController extends Controller {
  constructor(player) {
    super(player);
    this._onPop = () => this.restore();
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
    const target = parseHash(location.hash);
    if (target) this.player.go(target.slide, target.step, { source: "location" });
  }
  update(state, { previous, source }) {
    const hash = `#/${state.slide}/${state.step}`;
    if (location.hash === hash) return;
    if (source !== "location" && previous.slide !== state.slide) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
  }
}
