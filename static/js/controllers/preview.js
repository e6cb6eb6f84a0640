// A live, scaled-down copy of the stage for the speaker view: the same slide shells and the same
// stage owner, driven by its own Player, fitted to its box instead of the window. Its slide and
// step also show in the box's data-slide / data-step, like the audience's root.
import { STAGE_H, STAGE_W } from "../lib/stage-size.js";
import { renderWords } from "../views/caption.js";
import { StageController } from "./stage.js";

export class PreviewStage extends StageController {
  constructor(player, box, frames) {
    super(player, box, frames);
    this.captionEl = box.querySelector(".caption");
    this.resizer = typeof ResizeObserver === "function" ? new ResizeObserver(() => this.fit()) : null;
  }

  bind() { super.bind(); this.resizer?.observe(this.root); return this; }
  unbind() { super.unbind(); this.resizer?.disconnect(); }

  fit() {
    const w = this.root.clientWidth, h = this.root.clientHeight;
    if (!w || !h) return;
    this.stage.style.setProperty("--stage-scale", String(Math.min(w / STAGE_W, h / STAGE_H)));
  }

  showWords(words) { renderWords(this.captionEl, null, words); }
}
