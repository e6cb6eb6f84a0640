// The stage: scales the 16:9 canvas to the window, shows the active slide, keeps the root's
// data-slide / data-step in step with the player, and draws the current frame.
import { Controller } from "../controllers/controller.js";
import { renderCounters } from "./counters.js";
import { renderTensors } from "./matrix.js";
import { renderSymbols } from "./marks.js";
import { renderNotes } from "./notes.js";
import { renderWidgets } from "./widgets.js";
import "./widget-views.js";

const STAGE_W = 1600, STAGE_H = 900;

export class StageView extends Controller {
  constructor(player, root, frames) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.stage = root.querySelector("#stage");
    this._onResize = () => this.fit();
  }
  bind() {
    super.bind();
    window.addEventListener("resize", this._onResize);
    this.fit();
    return this;
  }
  unbind() { super.unbind(); window.removeEventListener("resize", this._onResize); }

  fit() {
    const scale = Math.min(window.innerWidth / STAGE_W, window.innerHeight / STAGE_H);
    this.stage.style.setProperty("--stage-scale", String(scale));
  }

  section(slideId) { return this.root.querySelector(`#slide-${CSS.escape(slideId)}`); }

  update(state) {
    const slide = this.player.slides[state.slide - 1];
    this.root.dataset.slide = slide.id;
    this.root.dataset.step = String(state.step);
    for (const s of this.root.querySelectorAll(".slide.active")) {
      if (s.dataset.slideId !== slide.id) s.classList.remove("active");
    }
    const section = this.section(slide.id);
    section.classList.add("active");
    // A control left focused on a slide that is no longer shown must not keep the keys.
    const focused = document.activeElement;
    if (focused && focused !== document.body && focused.closest(".slide") && !section.contains(focused)) focused.blur();
    const frame = this.frames.peek(slide.id, state.step);
    if (frame) { this.draw(section, frame); return; }
    this.frames.load(slide.id).then(() => {
      const now = this.player.state;
      if (now.slide === state.slide && now.step === state.step) {
        this.draw(section, this.frames.peek(slide.id, state.step));
      }
    }).catch((err) => console.warn(err.message));
  }

  draw(section, frame) {
    drawFrame(section, frame);
    this.root.dispatchEvent(new CustomEvent("framedrawn", { detail: { slide: frame.slide, step: frame.step } }));
  }
}

/** Draw one frame into a slide <section>: the audience stage, the speaker view and print all use this. */
export function drawFrame(section, frame) {
  const canvas = section.querySelector(".canvas");
  if (canvas) renderTensors(canvas, frame.tensors);
  if (canvas) renderSymbols(canvas, frame.symbols || []);
  const layer = section.querySelector(".notes-layer");
  if (layer) renderNotes(layer, frame.notes);
  renderWidgets(section.querySelector(".widget-layer"), frame.widgets, { frame, section });
  renderCounters(section.querySelector(".counters"), frame.counters);
}
