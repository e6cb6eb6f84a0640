// Keys for the "token-picker" widget on the talk's active slide: 1–9 choose a query token, Tab and
// Shift+Tab step through them. While the jump prompt (G) collects digits it claims them first, so
// "G 3 Enter" still jumps.
import { Controller } from "./controller.js";
import { fieldOwnsKey } from "./keys.js";
import { selectToken, tokenCount } from "../views/token-picker.js";

export class TokenPickerKeys extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this._onKey = (e) => this.onKey(e);
  }
  bind() { super.bind(); document.addEventListener("keydown", this._onKey); return this; }
  unbind() { super.unbind(); document.removeEventListener("keydown", this._onKey); }

  onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || fieldOwnsKey(event)) return;
    const picker = this.root.querySelector(".slide.active .widget-token-picker");
    if (!picker) return;
    const n = tokenCount(picker), current = Number(picker.dataset.selected || 0);
    if (/^[1-9]$/.test(event.key)) {
      if (Number(event.key) > n) return;
      selectToken(picker, Number(event.key) - 1);
      event.stopPropagation();
    } else if (event.key === "Tab" && (event.target === document.body || picker.contains(event.target))) {
      selectToken(picker, (current + (event.shiftKey ? n - 1 : 1)) % n);
      picker.querySelectorAll(".picker-token")[Number(picker.dataset.selected)].focus({ preventScroll: true });
      event.preventDefault();
      event.stopPropagation();
    }
  }
}
