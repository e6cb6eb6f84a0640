// The thin progress bar across the whole talk and the "slide 2/7 · step 3/6" counter.
import { Controller } from "./controller.js";

export class ProgressController extends Controller {
  constructor(player, root) {
    super(player);
    this.bar = root.querySelector(".progress");
    this.fill = root.querySelector(".progress-bar");
    this.position = root.querySelector("#position");
  }
  update(state) {
    const p = this.player;
    if (this.fill) {
      const total = p.totalSteps;
      const scale = `scaleX(${total > 1 ? (p.globalStep - 1) / (total - 1) : 1})`;
      if (this.fill.style.transform !== scale) this.fill.style.transform = scale;
      this.bar.setAttribute("aria-valuenow", String(p.globalStep));
    }
    if (this.position) {
      this.position.textContent =
        `slide ${state.slide}/${p.slideCount} · step ${state.step}/${p.stepsOf(state.slide)}`;
    }
  }
}
