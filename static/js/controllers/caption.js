// The caption bar: the current step's caption and its narration, shown on the stage with T or kept
// for screen readers only. The stage owner hands over each step's words (show): from the step's
// frame. The page's one live region (#announcer) says where a new slide starts ("Slide 9 of 16,
// <title>, step 1 of 6.") and then every step's caption.
import { renderWords } from "../views/caption.js";
import { Controller } from "./controller.js";

const STORAGE_KEY = "attention-talk-narration";

export class CaptionController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.caption = root.querySelector("#caption");
    this.narration = root.querySelector("#narration");
    this.announcer = root.querySelector("#announcer");
    // The skip link jumps over the drawing's Tab stops to the caption, without touching the URL's
    // #/slide/step.
    root.querySelector(".skip-link")?.addEventListener("click", (e) => {
      e.preventDefault();
      this.caption.focus();
    });
    this.where = "";
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
  /** `words`: {caption, narration}, a frame or the manifest's stand-in while the frame loads. */
  show(words) {
    renderWords(this.caption, this.narration, words);
    this.announce();
  }
  update(state, { previous = null, source = "" } = {}) {
    const p = this.player;
    const newSlide = !previous || previous.slide !== state.slide || source === "start";
    this.where = newSlide ? `Slide ${state.slide} of ${p.slideCount}, ${p.currentSlide.title}, ` +
      `step ${state.step} of ${p.stepsOf(state.slide)}. ` : "";
    this.announce();
  }
  announce() {
    const text = this.where + (this.caption?.textContent ?? "");
    if (this.announcer && this.announcer.textContent !== text) this.announcer.textContent = text;
  }
}
