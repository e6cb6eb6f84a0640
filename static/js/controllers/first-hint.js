// A first visit: the title slide says nothing about how to go on, and the on-screen buttons wait for
// the mouse. So a first-time visitor gets one small line in the bottom-left corner, beside the
// caption bar and below the drawing ("→ or Space to advance · ? for keys"; on a touch screen,
// "Swipe left to advance"), until the first step change; after that it is never shown again in this
// browser (localStorage). Not made for a follower of a live room (the presenter steps), nor when
// embedded (main.js), and absent from the print view; reading on a phone, the bar of buttons says it
// (reading.css hides the line). The PNG export opens the talk with the hint marked as seen.
import { Controller } from "./controller.js";

export const HINT_STORAGE_KEY = "attention-talk-hinted";

function seen() {
  try { return localStorage.getItem(HINT_STORAGE_KEY) === "1"; } catch (e) { return false; }
}

function remember() {
  try { localStorage.setItem(HINT_STORAGE_KEY, "1"); } catch (e) { /* storage off: this visit only */ }
}

const at = ({ slide, step }) => `${slide}/${step}`;

export class FirstHintController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.el = null;
    this.from = null; // the step the hint was shown on
  }

  bind() {
    super.bind();
    if (seen()) return this;
    this.el = document.createElement("p");
    this.el.className = "first-hint";
    this.el.id = "first-hint";
    this.el.textContent = matchMedia("(pointer: coarse)").matches
      ? "Swipe left to advance" : "→ or Space to advance · ? for keys";
    this.root.append(this.el);
    this.from = at(this.player.state);
    return this;
  }

  update(state) {
    if (this.el && at(state) !== this.from) this.dismiss();
  }

  /** The visitor has stepped: they know how. */
  dismiss() {
    remember();
    this.el.remove();
    this.el = null;
    this.unbind();
  }

  destroy() { this.unbind(); this.el?.remove(); }
}
