// The caption bar: the current step's caption (an aria-live region, so every step is announced to
// screen readers) and its narration, shown on the stage with T or kept for screen readers only.
// The stage owner hands over each step's words (show): from the step's frame.
import { renderWords } from "../views/caption.js";
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
  /** `words`: {caption, narration}, a frame or the manifest's stand-in while the frame loads. */
  show(words) { renderWords(this.caption, this.narration, words); }
}
