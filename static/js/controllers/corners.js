// The caption bar's bottom line. Its corners hold the position line (right, on every step) and a
// first visit's hint (left, until the first step change); between them stand a step's lab link
// (controllers/lab-link.js, lower left) and an answer's line (controllers/quiz.js, under the caption).
// Nothing there may cover anything else, and the stage must lay out the same whether a step was
// stepped to or opened by its link (the hint is there on one path only). So, once a step is drawn,
// the window changes or the bar's line changes ("cornerschange"), at the next frame (laid out then):
//  - an answer's line that meets the position line or the lab link moves sideways into the room
//    between them; if it is wider than that room, the position line yields (hidden until the step
//    changes) and the line moves into what is left;
//  - the hint never moves anything: it takes the first place along the bottom line, from the left,
//    that meets none of the bar's words, and yields (hidden) if there is none before the position.
// Most steps have no hint and no answer's line: nothing is read then.
import { Controller } from "./controller.js";

const GAP = 24; // CSS px kept between two things on the line

const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
const shift = (r, dx) => ({ left: r.left + dx, right: r.right + dx, top: r.top, bottom: r.bottom });
const near = (a, b) => meets(a, { left: b.left - GAP, right: b.right + GAP, top: b.top, bottom: b.bottom });

/** The boxes of the words and buttons inside `el` (its leaves), as laid out now; none inside `skip`. */
function words(el, skip = null) {
  return [...el.querySelectorAll("*")].filter((e) => e.childElementCount === 0 && !skip?.contains(e))
    .map((e) => e.getBoundingClientRect()).filter((r) => r.width > 1 && r.height > 1);
}

export class CornersController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.stage = root.querySelector("#stage");
    this.bar = root.querySelector(".caption-bar");
    this.asked = false;
    this._ask = () => this.ask();
  }

  bind() {
    super.bind();
    for (const type of ["framedrawn", "stagefit", "cornerschange"]) this.root.addEventListener(type, this._ask);
    this.ask();
    return this;
  }

  unbind() {
    super.unbind();
    for (const type of ["framedrawn", "stagefit", "cornerschange"]) this.root.removeEventListener(type, this._ask);
  }

  /** Place the line's things at the next frame (once, however many asked). */
  ask() {
    if (this.asked) return;
    this.asked = true;
    requestAnimationFrame(() => { this.asked = false; this.place(); });
  }

  place() {
    this.lay();
    this.root.dataset.corners = this.root.dataset.drawn ?? ""; // the step whose line is placed (tests wait for it)
  }

  lay() {
    const hint = this.root.querySelector("#first-hint");
    const position = this.root.querySelector("#position");
    const panel = this.bar?.classList.contains("quiz-reveal") ? this.bar.querySelector(".quiz-panel.quiz-docked:not([hidden])") : null;
    const docked = this.bar?.querySelector(".quiz-panel");
    if (!hint && !panel && !this.root.querySelector(".yields") && !docked?.style.translate) return; // nothing can meet
    for (const el of this.root.querySelectorAll(".yields")) el.classList.remove("yields");
    docked?.style.removeProperty("translate");
    if (!this.bar) return;
    const lab = this.bar.querySelector(".stage-lab-link:not([hidden])");
    const shown = (el) => (el && el.checkVisibility() ? el.getBoundingClientRect() : null);
    const dx = panel ? this.clearLine(panel, shown(position), shown(lab), position) : 0;
    if (hint) this.placeHint(hint, position, panel, dx);
  }

  /** Move the answer's line clear of the position line and the lab link; returns the move (CSS px). */
  clearLine(panel, position, lab, positionEl) {
    const line = words(panel);
    if (!line.length) return 0;
    const from = Math.min(...line.map((r) => r.left)), to = Math.max(...line.map((r) => r.right));
    const corners = [position, lab].filter(Boolean);
    if (!line.some((w) => corners.some((c) => near(w, c)))) return 0;
    const left = lab ? lab.right + GAP : GAP;
    let right = position ? position.left - GAP : window.innerWidth - GAP;
    if (to - from > right - left && position) { // no room beside the position line: it yields
      positionEl.classList.add("yields");
      right = window.innerWidth - GAP;
    }
    // the least move that clears both sides (the left one wins when the line is wider than the room)
    const dx = Math.max(0, left - from) || Math.min(0, right - to);
    const scale = parseFloat(this.stage.style.getPropertyValue("--stage-scale")) || 1; // set by controllers/stage.js fit()
    if (dx) panel.style.translate = `${dx / scale}px 0`;
    return dx;
  }

  /** The first place along the bottom line, from the left, where the hint meets none of the bar's words. */
  placeHint(hint, position, panel, dx) {
    hint.style.removeProperty("left");
    const box = hint.getBoundingClientRect();
    const taken = [...words(this.bar, panel), ...(panel ? words(panel).map((r) => shift(r, dx)) : [])];
    const end = position?.checkVisibility() ? position.getBoundingClientRect().left - GAP : window.innerWidth - GAP;
    let at = box.left;
    for (;;) {
      const here = shift(box, at - box.left);
      const hit = taken.filter((r) => near(here, r));
      if (!hit.length) break;
      at = Math.max(...hit.map((r) => r.right)) + GAP;
    }
    if (at + box.width > end) hint.classList.add("yields");
    else if (at !== box.left) hint.style.left = `${at}px`;
  }
}
