// The "?" overlay (F1 too): its rows are rendered from the same key table the keyboard handler
// uses. While open it holds the page (views/modal.js) and takes the focus; Esc (the player's
// "close" event) hides it and gives the focus back. Its checkbox turns the single-character
// shortcuts off or on (WCAG 2.1.4), kept for the next visit.
import { holdPage } from "../views/modal.js";
import { Controller } from "./controller.js";
import { setSingleKeys, singleKeysOn } from "./keys.js";

export class HelpController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.panel = root.querySelector("#help");
    this.release = null;
    player.register("help", () => this.toggle());
    this._onClose = () => this.toggle(false);
    this.toggleBox = this.panel?.querySelector("#single-keys");
    if (this.toggleBox) {
      this.toggleBox.checked = singleKeysOn();
      this.toggleBox.addEventListener("change", () => setSingleKeys(this.toggleBox.checked));
    }
  }
  bind() { super.bind(); this.player.addEventListener("close", this._onClose); return this; }
  unbind() { super.unbind(); this.player.removeEventListener("close", this._onClose); }
  get open() { return !this.panel.hidden; }
  toggle(force) {
    const open = force ?? !this.open;
    if (open === this.open) return;
    if (open) {
      this.release = holdPage(this.root, this.panel);
      this.panel.hidden = false;
      this.panel.focus({ preventScroll: true });
    } else {
      this.panel.hidden = true;
      this.release?.();
      this.release = null;
    }
  }
}
