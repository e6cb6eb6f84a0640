// Swipe left for the next step, right for the previous one, on a touch screen (anywhere on the page:
// while reading on a phone, the drawing does not fill it).
// Touch events, not pointer events: where the browser may pan (reading on a phone, pinch-zoomed),
// it takes the gesture and cancels the pointer, but the touch still ends with its coordinates.
// A gesture that scrolled something sideways (a part wider than a phone) was a pan, not a swipe. The page's touch-action
// (reading.css: pan-y, pan-x only while reading) keeps a sideways swipe from the browser, so it
// never goes Back; overscroll-behavior-x: none stops the overscroll navigation too.
import { Controller } from "./controller.js";

const MIN_DISTANCE = 50; // CSS px along x
const STEEPNESS = 1.5; // |dx| must beat |dy| by this much: a vertical scroll is no swipe
const OWN_DRAGS = "input, select, textarea, [contenteditable]"; // sliders keep their own drags

/** How far the page and every box around `el` that scrolls sideways are scrolled. */
function sidewaysScroll(el) {
  const out = [[document.scrollingElement, window.scrollX]];
  for (let e = el instanceof Element ? el : null; e; e = e.parentElement) {
    if (e.scrollWidth > e.clientWidth + 1) out.push([e, e.scrollLeft]);
  }
  return out;
}

export class TouchController extends Controller {
  constructor(player, target) {
    super(player);
    this.target = target;
    this.start = null;
    this._start = (e) => this.begin(e);
    this._move = (e) => { if (e.touches.length > 1) this.start = null; }; // a pinch is no swipe
    this._end = (e) => this.finish(e);
    this._cancel = () => { this.start = null; };
  }

  bind() {
    super.bind();
    const opts = { passive: true };
    this.target.addEventListener("touchstart", this._start, opts);
    this.target.addEventListener("touchmove", this._move, opts);
    this.target.addEventListener("touchend", this._end, opts);
    this.target.addEventListener("touchcancel", this._cancel, opts);
    return this;
  }

  unbind() {
    super.unbind();
    this.target.removeEventListener("touchstart", this._start);
    this.target.removeEventListener("touchmove", this._move);
    this.target.removeEventListener("touchend", this._end);
    this.target.removeEventListener("touchcancel", this._cancel);
  }

  begin(e) {
    const t = e.touches[0];
    const own = e.target instanceof Element && e.target.closest(OWN_DRAGS);
    this.start = e.touches.length === 1 && !own
      ? { x: t.clientX, y: t.clientY, scrolled: sidewaysScroll(e.target) }
      : null;
  }

  finish(e) {
    const start = this.start;
    this.start = null;
    const t = e.changedTouches[0];
    if (!start || !t || e.touches.length || this.player.state.overview) return; // the grid has its own taps
    const dx = t.clientX - start.x, dy = t.clientY - start.y;
    if (Math.abs(dx) < MIN_DISTANCE || Math.abs(dx) < STEEPNESS * Math.abs(dy)) return;
    const now = (el) => (el === document.scrollingElement ? window.scrollX : el.scrollLeft);
    if (start.scrolled.some(([el, left]) => Math.abs(now(el) - left) > 2)) return; // it panned
    if ((window.visualViewport?.scale ?? 1) > 1.01) return; // pinch-zoomed in: a drag pans the zoom
    this.player.perform(dx < 0 ? "next" : "prev");
  }
}
