// On-screen controls for a mouse or a finger: previous and next step, smaller and larger text, and
// while reading on a phone the "1 of 3" button that shows the step's next part. Presenting with a
// clicker or the keyboard they stay out of sight: they appear when the mouse moves or a finger
// touches the screen, and fade after a few idle seconds (or at once on a key press). They never cover
// an open panel: beside it, or out of sight (place). While reading (html.reading) they are a bar of
// their own under the drawing and stay (reading.css).
import { TEXT_SIZES } from "../lib/stage-size.js";
import { Controller } from "./controller.js";

const IDLE_MS = 3000;
// An open panel or overlay (the derivation panel, the help, the overview, the room's QR code): the
// controls never cover one. The derivation panel lives inside the scaled stage, whose own stacking
// context sits under the controls, so no z-index can lift it over them: they move aside instead.
// A question's derivation (views/quiz.js) opened above the caption bar counts as one.
const OPEN_PANELS = '[role="dialog"]:not([hidden]), .quiz-docked .quiz-derivation:not([hidden])';
// A question's sheet along the bottom of a phone (rooms.css): the controls stand above it, as above the bar.
const SHEET = "#quiz-panel:not(.quiz-docked):not([hidden])";
const SPOTS = ["center", "left", "right"]; // in this order of preference; none free: out of sight
const GAP = 8; // px between the controls and the caption bar they stay above
const KEPT_KEYS = new Set(["Tab", "Enter", " "]); // keys that use the controls rather than present

/** A button with a visible glyph (hidden from screen readers) and a spoken name. */
function button(cls, glyph, name) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `onscreen-button ${cls}`;
  const g = document.createElement("span");
  g.setAttribute("aria-hidden", "true");
  g.textContent = glyph;
  const n = document.createElement("span");
  n.className = "sr-only";
  n.textContent = name;
  b.append(g, n);
  return b;
}

export class OnscreenController extends Controller {
  constructor(player, root, { reading, textSize }) {
    super(player);
    this.root = root;
    this.reading = reading;
    this.textSize = textSize;
    this.bar = root.querySelector(".caption-bar");
    this.el = document.createElement("div");
    this.el.className = "onscreen idle";
    this.el.setAttribute("role", "group");
    this.el.setAttribute("aria-label", "Step and text size");
    this.buttons = {
      prev: button("onscreen-prev", "‹", "Previous step"),
      part: button("onscreen-part", "", "Next part"),
      smaller: button("onscreen-smaller", "A−", "Smaller text"),
      bigger: button("onscreen-bigger", "A+", "Larger text"),
      next: button("onscreen-next", "›", "Next step"),
    };
    this.buttons.part.hidden = true;
    this.el.append(...Object.values(this.buttons));
    this.timer = 0;
    this.last = null; // the mouse's last position: Chrome sends moves when only the page changed
    this.handlers = this.makeHandlers();
    this.panels = new MutationObserver(() => { if (!this.el.classList.contains("idle")) this.place(); });
  }

  makeHandlers() {
    const act = (name) => () => { this.player.perform(name); this.refresh(); this.wake(); };
    return {
      clicks: { prev: act("prev"), next: act("next"), smaller: act("textSmaller"), bigger: act("textBigger"),
        part: () => { this.reading.nextPart(); this.wake(); } },
      move: (e) => {
        if (e.pointerType !== "mouse") return;
        const moved = !this.last || this.last[0] !== e.screenX || this.last[1] !== e.screenY;
        this.last = [e.screenX, e.screenY];
        if (moved) this.wake();
      },
      touch: () => this.wake(),
      key: (e) => { if (!(this.el.contains(e.target) && KEPT_KEYS.has(e.key))) this.sleep(); },
      part: (e) => this.showPart(e.detail),
      fit: () => this.refresh(), // the text size changed (keys + - 0)
    };
  }

  bind() {
    super.bind();
    this.root.append(this.el);
    for (const [name, fn] of Object.entries(this.handlers.clicks)) this.buttons[name].addEventListener("click", fn);
    window.addEventListener("pointermove", this.handlers.move, { passive: true });
    window.addEventListener("touchstart", this.handlers.touch, { passive: true });
    window.addEventListener("keydown", this.handlers.key, true);
    this.root.addEventListener("readingpart", this.handlers.part);
    this.root.addEventListener("stagefit", this.handlers.fit);
    // a panel opened or closed (or made) while the controls are shown: they move out of its way
    this.panels.observe(this.root, { subtree: true, childList: true, attributes: true, attributeFilter: ["hidden"] });
    return this;
  }

  unbind() {
    super.unbind();
    window.removeEventListener("pointermove", this.handlers.move);
    window.removeEventListener("touchstart", this.handlers.touch);
    window.removeEventListener("keydown", this.handlers.key, true);
    this.root.removeEventListener("readingpart", this.handlers.part);
    this.root.removeEventListener("stagefit", this.handlers.fit);
    this.panels.disconnect();
    this.el.remove();
  }

  update() { this.refresh(); }

  /** Which buttons can act: no previous step on the first, no next on the last, sizes at their ends. */
  refresh() {
    const p = this.player, b = this.buttons;
    b.prev.disabled = p.globalStep === 1;
    b.next.disabled = p.globalStep === p.totalSteps;
    b.smaller.disabled = this.textSize.index === 0;
    b.bigger.disabled = this.textSize.index === TEXT_SIZES.length - 1;
  }

  showPart({ reading, index, count, label }) {
    const b = this.buttons.part;
    b.hidden = !reading || count < 2;
    b.firstChild.textContent = `${index + 1} of ${count} ›`;
    b.lastChild.textContent = `${index + 1} of ${count}: ${label}. Show the next part`;
  }

  /** Show the controls above the caption bar, until IDLE_MS pass without a move or a touch. */
  wake() {
    const sheet = document.querySelector(SHEET)?.getBoundingClientRect();
    const tops = [this.bar?.getBoundingClientRect().top,
      sheet && sheet.height > 0 && sheet.bottom > window.innerHeight - 4 * GAP ? sheet.top : undefined];
    const top = Math.min(...tops.filter((t) => t !== undefined));
    if (Number.isFinite(top)) this.root.style.setProperty("--onscreen-bottom", `${Math.max(GAP, window.innerHeight - top + GAP)}px`);
    this.el.classList.remove("idle");
    this.place();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.sleepUnlessUsed(), IDLE_MS);
  }

  /** Centred above the caption bar, or to its left or right where an open panel would be under
   * them there; out of sight when every spot would cover one. While reading they are a bar of their
   * own, under the panel (reading.css). */
  place() {
    if (document.documentElement.classList.contains("reading")) { delete this.el.dataset.spot; return; }
    const open = [...document.querySelectorAll(OPEN_PANELS)].map((p) => p.getBoundingClientRect())
      .filter((r) => r.width > 0 && r.height > 0);
    const { top, height } = this.el.getBoundingClientRect();
    const width = this.el.offsetWidth;
    const lefts = { center: (window.innerWidth - width) / 2, left: 2 * GAP, right: window.innerWidth - width - 2 * GAP };
    const covers = (left, r) => left < r.right && r.left < left + width && top < r.bottom && r.top < top + height;
    const spot = SPOTS.find((s) => !open.some((r) => covers(lefts[s], r))) ?? "none";
    this.el.dataset.spot = spot;
    if (spot === "none" && this.el.contains(document.activeElement)) document.activeElement.blur();
  }

  sleepUnlessUsed() {
    if (this.el.matches(":hover") || this.el.querySelector(":focus-visible")) {
      this.timer = setTimeout(() => this.sleepUnlessUsed(), IDLE_MS);
      return;
    }
    this.sleep();
  }

  sleep() {
    clearTimeout(this.timer);
    this.el.classList.add("idle");
    if (this.el.contains(document.activeElement)) document.activeElement.blur(); // hidden: no focus
  }
}
