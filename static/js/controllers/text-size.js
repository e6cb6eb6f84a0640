// Text size (WCAG 1.4.4): + and - (or the on-screen A+ and A−) draw the talk's text larger or
// smaller in steps (lib/stage-size.js TEXT_SIZES), 0 returns to the designed size; the choice is
// kept for the next visit. Larger than the window, the stage is read a part at a time
// (controllers/reading.js) instead of overflowing out of sight.
import { TEXT_SIZE_KEY as STORAGE_KEY, TEXT_SIZES, storedTextSize } from "../lib/stage-size.js";
import { Controller } from "./controller.js";

export class TextSizeController extends Controller {
  constructor(player, stage) {
    super(player);
    this.stage = stage;
    this.index = TEXT_SIZES.indexOf(storedTextSize());
    player.register("textBigger", () => this.set(this.index + 1));
    player.register("textSmaller", () => this.set(this.index - 1));
    player.register("textReset", () => this.set(0));
  }

  bind() {
    super.bind();
    this.mark();
    if (this.index) this.stage.setTextSize(this.factor);
    return this;
  }

  get factor() { return TEXT_SIZES[this.index]; }

  /** <html data-text-size> for tests and CSS, --text-size for the type drawn off the stage. */
  mark() {
    const html = document.documentElement;
    html.dataset.textSize = String(this.factor);
    html.style.setProperty("--text-size", String(this.factor));
  }

  set(index) {
    this.index = Math.min(TEXT_SIZES.length - 1, Math.max(0, index));
    this.mark();
    this.stage.setTextSize(this.factor);
    try { localStorage.setItem(STORAGE_KEY, String(this.factor)); } catch (e) { /* storage off: this visit only */ }
  }
}
