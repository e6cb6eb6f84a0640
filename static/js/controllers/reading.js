// Reading on a small screen: while the stage owner says the stage is read rather than fitted
// ("stagefit" with reading: a phone held upright, a larger text size), the page shows the caption
// on top and one part of the step at a time (views/reading.js), the one the step is about first;
// nextPart() moves to the next (the on-screen "1 of 3" button). Says which part with "readingpart".
import { STAGE_H } from "../lib/stage-size.js";
import { MARGIN, PAD, applyWindow, focusIndex, partWindow, readingParts } from "../views/reading.js";
import { Controller } from "./controller.js";

export class ReadingController extends Controller {
  constructor(player, root, frames, stage) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.stage = stage;
    this.parts = [];
    this.index = 0;
    this.bar = root.querySelector(".caption-bar");
    this.title = document.createElement("p");
    this.title.className = "reading-title";
    this.title.setAttribute("aria-hidden", "true"); // the announcer names the slide; this is for the eyes
    this.bar?.prepend(this.title);
    this._onDrawn = (e) => this.drawn(e.detail);
    this._onFit = () => {
      if (this.reading && !this.parts?.length && this.last) this.drawn(this.last);
      else this.show(false);
    };
    this.barWatch = typeof ResizeObserver === "function" && this.bar ? new ResizeObserver(() => this.measure()) : null;
  }

  bind() {
    super.bind();
    this.root.addEventListener("framedrawn", this._onDrawn);
    this.root.addEventListener("stagefit", this._onFit);
    this.barWatch?.observe(this.bar);
    return this;
  }

  unbind() {
    super.unbind();
    this.root.removeEventListener("framedrawn", this._onDrawn);
    this.root.removeEventListener("stagefit", this._onFit);
    this.barWatch?.disconnect();
  }

  get reading() { return this.stage.layout.reading; }

  update(state) {
    const p = this.player, slide = p.slides[state.slide - 1];
    this.title.textContent = `${state.slide}/${p.slideCount} · ${slide.title} · step ${state.step}/${slide.steps}`;
  }

  /** A step's frame is on the stage: find its parts and the one it is about (only while reading:
   * on the full stage there are no parts to show, and measuring them costs a layout per step). */
  drawn({ slide, step }) {
    this.last = { slide, step };
    if (!this.reading) { this.parts = []; return; }
    const frame = this.frames.peek(slide, step);
    if (!frame) return;
    const previous = step > 1 ? this.frames.peek(slide, step - 1) : null;
    this.parts = readingParts(frame, this.titleBox());
    this.index = focusIndex(this.parts, previous);
    this.show(true);
  }

  nextPart() {
    if (this.parts.length < 2) return;
    this.index = (this.index + 1) % this.parts.length;
    this.show(true);
  }

  /** How wide text may be while reading, in stage units: the screen's width, less the margins. */
  textWidth() {
    return Math.max(200, (document.documentElement.clientWidth - 2 * PAD) / this.stage.layout.scale - 2 * MARGIN);
  }

  /** The title block while reading: as wide as the screen, so its words wrap (reading.css). */
  titleBox() { return { x: 0, y: 0, w: this.textWidth(), h: STAGE_H - 140 }; }

  /** A note is words: while it is the part shown, they wrap to the screen's width (reading.css). */
  reflow(part) {
    const section = this.root.querySelector(".slide.active");
    for (const el of section?.querySelectorAll(".note.reading-part") ?? []) el.classList.remove("reading-part");
    if (!this.reading || !part?.key.startsWith("n:")) return part?.box;
    const el = section.querySelector(`.note[data-note="${CSS.escape(part.key.slice(2))}"]`);
    if (!el) return part.box;
    el.classList.add("reading-part");
    return { x: part.box.x, y: part.box.y, w: this.textWidth(), h: el.offsetHeight };
  }

  measure() {
    if (!this.bar) return;
    this.root.style.setProperty("--reading-top", `${Math.ceil(this.bar.getBoundingClientRect().height)}px`);
  }

  /** A new part starts at the top; a matrix or a note at its left edge (row labels and the start of
   * the words), a diagram wider than the screen at its middle (where its drawing usually is). */
  scrollToStart(part) {
    window.scrollTo(0, 0);
    const view = this.root.querySelector(".viewport");
    if (view) view.scrollLeft = part.key.startsWith("w:") ? (view.scrollWidth - view.clientWidth) / 2 : 0;
  }

  /** Show the current part (or the whole stage when not reading); `fresh`: scroll to its start. */
  show(fresh) {
    const part = this.parts[this.index];
    if (this.reading) this.root.style.setProperty("--text-w", `${this.textWidth()}px`);
    const box = this.reflow(part);
    if (!this.reading || !part) {
      applyWindow(this.root, null);
      delete this.root.dataset.readingPart;
    } else {
      this.root.dataset.readingPart = part.key; // "t:map", "w:growth", "n:source-1", "title"

      const { scale } = this.stage.layout;
      if (part.key === "title") part.box = this.titleBox();
      applyWindow(this.root, partWindow(part.key === "title" ? part.box : box, scale, document.documentElement.clientWidth));
      this.measure();
      if (fresh) this.scrollToStart(part);
    }
    const detail = { reading: this.reading, index: this.index, count: this.parts.length, label: part?.label ?? "" };
    this.root.dispatchEvent(new CustomEvent("readingpart", { detail }));
  }
}
