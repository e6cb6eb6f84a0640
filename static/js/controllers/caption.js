// The caption bar: the current step's caption (and narration, read from the server-rendered
// step list) in an aria-live region, so every step is announced to screen readers.
import { Controller } from "./controller.js";

const STORAGE_KEY = "attention-talk-narration";

export class CaptionController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.caption = root.querySelector("#caption");
    this.narration = root.querySelector("#narration");
    let shown = false;
    try { shown = localStorage.getItem(STORAGE_KEY) === "1"; } catch (e) { /* storage off */ }
    this.setNarration(shown);
    player.register("text", () => this.setNarration(!this.shown));
  }
  setNarration(shown) {
    this.shown = shown;
    this.narration.classList.toggle("sr-only", !shown);
    this.narration.hidden = false;
    this.root.classList.toggle("narration-on", shown);
    try { localStorage.setItem(STORAGE_KEY, shown ? "1" : "0"); } catch (e) { /* storage off */ }
  }
  update(state) {
    const slide = this.player.slides[state.slide - 1];
    const item = this.root.querySelector(`#slide-${CSS.escape(slide.id)} .step[data-step="${state.step}"]`);
    this.caption.textContent = item.querySelector(".step-caption").textContent;
    this.narration.textContent = item.querySelector(".step-narration").textContent;
  }
}
