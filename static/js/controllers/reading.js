// Reading on a small screen: while the stage owner says the stage is read rather than fitted
// ("stagefit" with reading: a phone held upright, a larger text size), the page shows the caption
// on top and one part of the step at a time (views/reading.js), the one the step is about first;
// nextPart() moves to the next (the on-screen "1 of 3" button). Says which part with "readingpart".
// Each part is scaled to fit the screen's width as far as its text stays readable; a part wider
// than that scrolls sideways inside its window, whose cut sides fade and carry a scroll button
// (.reading-edges; the window says which sides hide more in data-hidden-sides).
import { STAGE_H } from "../lib/stage-size.js";
import { reducedMotion } from "../views/dom.js";
import {
  MARGIN, PAD, applyWindow, drawnBox, floorScale, focusIndex, hiddenSides, partElement, partScale,
  partWindow, readingParts, textSizes, wraps,
} from "../views/reading.js";
import { Controller } from "./controller.js";

const SCROLL_BY = 0.8; // a scroll button moves the part by this share of the window's width
const FIT_ROUNDS = 3; // a drawing is measured at most this many times more at its new scale

export class ReadingController extends Controller {
  constructor(player, root, frames, stage) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.stage = stage;
    this.parts = [];
    this.index = 0;
    this.generation = 0; // a re-measure after a step's motion belongs to the step it started in
    this.bar = root.querySelector(".caption-bar");
    this.view = root.querySelector(".viewport");
    this.title = document.createElement("p");
    this.title.className = "reading-title";
    this.title.setAttribute("aria-hidden", "true"); // the announcer names the slide; this is for the eyes
    this.bar?.prepend(this.title);
    this.edges = this.edgeCues();
    this._onDrawn = (e) => this.drawn(e.detail);
    this._onFit = () => {
      if (this.reading && !this.parts?.length && this.last) this.drawn(this.last);
      else this.show(false);
    };
    this._onScroll = () => this.markEdges();
    // A font that arrives after a part was measured (the equations' maths font) widens its words.
    this._onFonts = () => { if (this.reading && this.parts.length) this.show(false); };
    this.barWatch = typeof ResizeObserver === "function" && this.bar ? new ResizeObserver(() => this.measure()) : null;
  }

  bind() {
    super.bind();
    this.root.addEventListener("framedrawn", this._onDrawn);
    this.root.addEventListener("stagefit", this._onFit);
    this.view?.addEventListener("scroll", this._onScroll, { passive: true });
    document.fonts?.addEventListener("loadingdone", this._onFonts);
    this.barWatch?.observe(this.bar);
    return this;
  }

  unbind() {
    super.unbind();
    this.root.removeEventListener("framedrawn", this._onDrawn);
    this.root.removeEventListener("stagefit", this._onFit);
    this.view?.removeEventListener("scroll", this._onScroll);
    document.fonts?.removeEventListener("loadingdone", this._onFonts);
    this.barWatch?.disconnect();
  }

  get reading() { return this.stage.layout.reading; }

  update(state) {
    const p = this.player, slide = p.slides[state.slide - 1];
    this.title.textContent = `${state.slide}/${p.slideCount} · ${slide.title} · step ${state.step}/${slide.steps}`;
  }

  /** The fades and scroll buttons at the window's two sides: a layer that stays over the window
   * while its part scrolls under it (reading.css .reading-edges). */
  edgeCues() {
    if (!this.view) return null;
    const layer = document.createElement("div");
    layer.className = "reading-edges";
    for (const [side, sign, arrow] of [["left", -1, "‹"], ["right", 1, "›"]]) {
      const edge = document.createElement("div");
      edge.className = `reading-edge reading-edge-${side}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "reading-scroll";
      button.setAttribute("aria-label", `More of this part to the ${side}: scroll`);
      button.textContent = arrow;
      button.addEventListener("click", () => this.view.scrollBy({ left: sign * SCROLL_BY * this.view.clientWidth,
        behavior: reducedMotion() ? "auto" : "smooth" }));
      edge.append(button);
      layer.append(edge);
    }
    this.view.prepend(layer);
    return layer;
  }

  /** Mark the sides of the window that hide more of the part (its edge cues show there). */
  markEdges() {
    if (!this.view) return;
    const sides = this.reading ? hiddenSides(this.view) : "";
    if (this.view.dataset.hiddenSides !== sides) this.view.dataset.hiddenSides = sides;
  }

  /** A step's frame is on the stage: find its parts and the one it is about (only while reading:
   * on the full stage there are no parts to show, and measuring them costs a layout per step). */
  drawn({ slide, step }) {
    this.last = { slide, step };
    this.generation++;
    if (!this.reading) { this.parts = []; return; }
    const frame = this.frames.peek(slide, step);
    if (!frame) return;
    const previous = step > 1 ? this.frames.peek(slide, step - 1) : null;
    this.parts = readingParts(frame, this.titleBox(this.stage.layout.scale));
    this.index = focusIndex(this.parts, previous);
    this.show(true);
    this.refitAfterMotion();
    if (step > 1 && !previous) this.refocusWhenLoaded(slide, step);
  }

  /** A step opened by its link is drawn before its slide's other frames have come (frames.js
   * loadStep), so the part it is about, told by what changed from the step before, is found once
   * they have: the same part as when stepped to, unless the reader has moved on (another step, or
   * another part) meanwhile. */
  refocusWhenLoaded(slide, step) {
    const generation = this.generation, index = this.index;
    this.frames.load(slide).then(() => {
      if (generation !== this.generation || index !== this.index || !this.reading) return;
      const focus = focusIndex(this.parts, this.frames.peek(slide, step - 1));
      if (focus !== this.index) { this.index = focus; this.show(true); }
    }, () => {});
  }

  /** A part still moving or growing into its place was measured half way: once the step's motion
   * has ended, measure it again (a looping animation is not waited for). */
  refitAfterMotion() {
    const section = this.activeSection(), generation = this.generation;
    const moving = section?.getAnimations({ subtree: true })
      .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity) ?? [];
    if (!moving.length) return;
    Promise.allSettled(moving.map((a) => a.finished)).then(() => {
      if (generation === this.generation && this.reading) this.show(false);
    });
  }

  nextPart() {
    if (this.parts.length < 2) return;
    this.index = (this.index + 1) % this.parts.length;
    this.show(true);
  }

  activeSection() { return this.root.querySelector(".slide.active"); }

  /** How wide text may be while reading at `scale`, in stage units: the screen's width, less the margins. */
  textWidth(scale) {
    return Math.max(200, (document.documentElement.clientWidth - 2 * PAD) / scale - 2 * MARGIN);
  }

  /** The title block while reading: as wide as the screen, so its words wrap (reading.css). */
  titleBox(scale) { return { x: 0, y: 0, w: this.textWidth(scale), h: STAGE_H - 140 }; }

  /** The window onto `part`: words (a note, cards, the title) wrap to the screen's width at the scale
   * their text needs; a drawing is cut to what it draws and scaled to fit the width, as far as its
   * text stays readable (views/reading.js partScale), else it scrolls. */
  partView(part) {
    const { scale: preferred, textSize = 1 } = this.stage.layout;
    const room = document.documentElement.clientWidth;
    this.root.style.setProperty("--text-w", `${this.textWidth(preferred)}px`); // the title block's, on any step
    const el = partElement(this.activeSection(), part.key);
    if (!el) return partWindow(part.box, preferred, room);
    const floor = floorScale(textSizes(el)) * textSize;
    if (wraps(part.key, el)) {
      const scale = Math.max(preferred, floor);
      this.root.style.setProperty("--text-w", `${this.textWidth(scale)}px`);
      if (part.key === "title") return partWindow(this.titleBox(scale), scale, room);
      el.classList.add("reading-part"); // wraps to --text-w (reading.css)
      return partWindow({ x: part.box.x, y: part.box.y, w: this.textWidth(scale), h: el.offsetHeight }, scale, room);
    }
    const box = drawnBox(el, part.box);
    const { scale, pad } = partScale(box.w, room, floor, preferred);
    return partWindow(box, scale, room, pad);
  }

  /** Apply the window onto `part`. Text is laid out again at the new scale and does not always
   * keep its proportions (a font's hinting, MathML's stretched brackets), so a drawing is measured
   * again where it now is, until its window holds still. */
  fitPart(part) {
    let win = this.partView(part);
    for (let i = 0; i < FIT_ROUNDS; i++) {
      applyWindow(this.root, win);
      if (wraps(part.key, partElement(this.activeSection(), part.key))) return;
      const again = this.partView(part);
      if (Math.abs(again.scale - win.scale) < 1e-3 && Math.abs(again.partW - win.partW) < 0.5
        && Math.abs(again.partH - win.partH) < 0.5) return;
      win = again;
    }
    applyWindow(this.root, win);
  }

  /** Words shown as the part (a note, cards) wrap to the screen; the others keep their stage shape. */
  unwrapWords() {
    for (const el of this.activeSection()?.querySelectorAll(".reading-part") ?? []) el.classList.remove("reading-part");
  }

  measure() {
    if (!this.bar) return;
    this.root.style.setProperty("--reading-top", `${Math.ceil(this.bar.getBoundingClientRect().height)}px`);
  }

  /** A new part starts at the top and at the left edge of its drawing (row labels, the start of the
   * words, a diagram's input); the right edge's cue says there is more. */
  scrollToStart() {
    window.scrollTo(0, 0);
    if (this.view) this.view.scrollLeft = 0;
  }

  /** Show the current part (or the whole stage when not reading); `fresh`: scroll to its start. */
  show(fresh) {
    const part = this.parts[this.index];
    this.unwrapWords();
    if (!this.reading || !part) {
      applyWindow(this.root, null);
      this.root.style.removeProperty("--text-w");
      delete this.root.dataset.readingPart;
    } else {
      this.root.dataset.readingPart = part.key; // "t:map", "w:growth", "n:source-1", "title"
      this.fitPart(part);
      this.measure();
      if (fresh) this.scrollToStart();
    }
    this.markEdges();
    const detail = { reading: this.reading, index: this.index, count: this.parts.length, label: part?.label ?? "" };
    this.root.dispatchEvent(new CustomEvent("readingpart", { detail }));
  }
}
