// The "?" overlay: its rows are rendered from the same key table the keyboard handler uses.
import { Controller } from "./controller.js";

export class HelpController extends Controller {
  constructor(player, root) {
    super(player);
    this.panel = root.querySelector("#help");
    player.register("help", () => this.toggle());
    player.register("close", () => this.toggle(false));
  }
  get open() { return !this.panel.hidden; }
  toggle(force) {
    this.panel.hidden = !(force ?? !this.open);
  }
}
