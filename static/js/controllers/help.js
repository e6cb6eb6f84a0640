// The "?" overlay: its rows are rendered from the same key table the keyboard handler uses.
// Esc (the player's "close" event) hides it.
import { Controller } from "./controller.js";

export class HelpController extends Controller {
  constructor(player, root) {
    super(player);
    this.panel = root.querySelector("#help");
    player.register("help", () => this.toggle());
    this._onClose = () => this.toggle(false);
  }
  bind() { super.bind(); this.player.addEventListener("close", this._onClose); return this; }
  unbind() { super.unbind(); this.player.removeEventListener("close", this._onClose); }
  get open() { return !this.panel.hidden; }
  toggle(force) {
    this.panel.hidden = !(force ?? !this.open);
  }
}
