// A live, scaled-down copy of the stage for the speaker view: the same slide shells and the same
// StageView drawing, driven by its own Player, fitted to its box instead of the window. Its slide
// and step also show in the box's data-slide / data-step, like the audience's root.
import { StageView } from "./views/stage.js";

const STAGE_W = 1600, STAGE_H = 900;

export class PreviewStage extends StageView {
  constructor(player, box, frames) {
    super(player, box, frames);
    this.stage = box.querySelector(".stage");
    this.caption = box.querySelector(".caption");
    this.resizer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.fit()) : null;
  }

  bind() { super.bind(); this.resizer?.observe(this.root); return this; }
  unbind() { super.unbind(); this.resizer?.disconnect(); }

  fit() {
    const w = this.root.clientWidth, h = this.root.clientHeight;
    if (!w || !h) return;
    this.stage.style.setProperty("--stage-scale", String(Math.min(w / STAGE_W, h / STAGE_H)));
  }

  section(slideId) { return this.root.querySelector(`.slide[data-slide-id="${CSS.escape(slideId)}"]`); }

  update(state) {
    super.update(state);
    this.caption.textContent = this.player.slides[state.slide - 1].captions[state.step - 1];
  }
}

/** The position after (slide, step) in the talk, or null at the very end. */
export function following(player, { slide, step }) {
  if (step < player.stepsOf(slide)) return { slide, step: step + 1 };
  if (slide < player.slideCount) return { slide: slide + 1, step: 1 };
  return null;
}
