// Swipe left for the next step, right for the previous one.
import { Controller } from "./controller.js";

const MIN_DISTANCE = 50;

export class TouchController extends Controller {
  constructor(player, target) {
    super(player);
    this.target = target;
    this.start = null;
    this._down = (e) => { if (e.pointerType !== "mouse") this.start = { x: e.clientX, y: e.clientY }; };
    this._up = (e) => this.finish(e);
  }
  bind() {
    super.bind();
    this.target.addEventListener("pointerdown", this._down);
    this.target.addEventListener("pointerup", this._up);
    return this;
  }
  unbind() {
    super.unbind();
    this.target.removeEventListener("pointerdown", this._down);
    this.target.removeEventListener("pointerup", this._up);
  }
  finish(e) {
    if (!this.start) return;
    const dx = e.clientX - this.start.x, dy = e.clientY - this.start.y;
    this.start = null;
    if (Math.abs(dx) < MIN_DISTANCE || Math.abs(dx) < Math.abs(dy)) return;
    this.player.perform(dx < 0 ? "next" : "prev");
  }
}
