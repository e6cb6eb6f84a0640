// The URL hash #/<slide>/<step> (1-based) follows the player; loading it opens that step.
// A new slide gets a history entry (Back returns to the previous slide); steps replace it.
//
// When the step comes from a key that is still held down, its URL is written as the key comes up
// or once the step has been painted, whichever is first: a history write is a same-document
// navigation that costs the browser about as much as drawing the step, so it leaves the key's
// first frame. A hand holds a key for about 100 ms; a clicker lets go at once, and then the URL is
// written before the paint, as any other step's. Anything that could act on the URL first flushes
// a waiting write: the next key or pointer press, the page being hidden or left. So a reload, a
// Back or a copied link right after a key is never a step behind the talk.
import { Controller } from "./controller.js";

export function parseHash(hash) {
  const m = /^#\/(\d+)(?:\/(\d+))?\/?$/.exec(hash || "");
  return m ? { slide: Number(m[1]), step: Number(m[2] || 1) } : null;
}

// Before any other handler sees the event (window, capture phase).
const EARLY = { capture: true };

export class LocationController extends Controller {
  constructor(player) {
    super(player);
    this.down = new Set(); // keys held down now
    this.pending = null; // {push, from}: a step whose URL is not written yet, and the URL then
    this._onPop = () => { this.pending = null; this.restore(); }; // someone else's URL wins
    this._onKeyDown = (e) => { this.flush(); this.down.add(e.code || e.key); };
    this._onKeyUp = (e) => { this.down.delete(e.code || e.key); this.flush(); };
    this._onLeave = () => { this.down.clear(); this.flush(); }; // blurred, hidden or left
    this._flush = () => this.flush();
    this.listeners = [
      ["popstate", this._onPop], ["hashchange", this._onPop],
      ["keydown", this._onKeyDown, EARLY], ["keyup", this._onKeyUp, EARLY],
      ["pointerdown", this._flush, EARLY], ["blur", this._onLeave], ["pagehide", this._onLeave],
      ["beforeunload", this._flush],
    ];
  }
  bind() {
    super.bind();
    for (const [type, fn, options] of this.listeners) window.addEventListener(type, fn, options);
    document.addEventListener("visibilitychange", this._onLeave);
    return this;
  }
  unbind() {
    super.unbind();
    this.flush();
    for (const [type, fn, options] of this.listeners) window.removeEventListener(type, fn, options);
    document.removeEventListener("visibilitychange", this._onLeave);
  }
  restore() {
    const target = parseHash(location.hash);
    if (target) this.player.go(target.slide, target.step, { source: "location" });
  }
  update(state, { previous, source }) {
    // The URL said so (put right if it was clamped), or someone else's URL wins over a waiting write.
    if (source === "location") { this.pending = null; this.write(state, false); return; }
    const push = this.pending?.push || previous.slide !== state.slide;
    if (this.down.size === 0) { this.pending = null; this.write(state, push); return; }
    const waiting = this.pending !== null;
    this.pending = { push, from: waiting ? this.pending.from : location.hash };
    if (!waiting) this.afterPaint();
  }

  /** Flush once the frame that shows the step has been painted (a task posted from its
   * requestAnimationFrame runs after that frame). A hidden page paints nothing; it flushes on
   * visibilitychange, and the keyup flushes in any case. */
  afterPaint() {
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = this._flush;
      channel.port2.postMessage(null);
    });
  }

  flush() {
    if (this.pending === null) return;
    const { push, from } = this.pending;
    this.pending = null;
    // Someone else changed the URL meanwhile (its hashchange is on the way): theirs wins.
    if (location.hash === from) this.write(this.player.state, push);
  }

  /** A new slide gets a history entry (`push`); anything else replaces the current one. */
  write(state, push) {
    const hash = `#/${state.slide}/${state.step}`;
    if (location.hash === hash) return;
    if (push && parseHash(location.hash)?.slide !== state.slide) history.pushState(null, "", hash);
    else history.replaceState(null, "", hash);
  }
}
