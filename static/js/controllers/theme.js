// Dark or light: "D" swaps the colour scheme (a projector in a bright room wants light) and the
// choice is kept for the next visit; prepaint.js applies it before the first paint.
import { Controller } from "./controller.js";

const STORAGE_KEY = "attention-talk-theme";

export class ThemeController extends Controller {
  constructor(player, root = document.documentElement) {
    super(player);
    this.root = root;
    player.register("theme", () => this.toggle());
  }
  get theme() { return this.root.getAttribute("data-theme") === "light" ? "light" : "dark"; }
  toggle() {
    const next = this.theme === "light" ? "dark" : "light";
    this.root.setAttribute("data-theme", next);
    try { localStorage.setItem(STORAGE_KEY, next); } catch (e) { /* storage off: this visit only */ }
  }
}
