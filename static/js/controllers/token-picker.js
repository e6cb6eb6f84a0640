// Keys for the "token-picker" widget on the talk's active slide: 1–9 choose a query token (unless
// single-key shortcuts are off). The arrows move inside the picker itself (views/token-picker.js:
// one Tab stop). While the jump prompt (G) collects digits it claims them first, so "G 3 Enter"
// still jumps.
import { Controller } from "./controller.js";
import { fieldOwnsKey, singleKeysOn } from "./keys.js";
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
    if (event.ctrlKey || event.metaKey || event.altKey || fieldOwnsKey(event) || !singleKeysOn()) return;
    const picker = this.root.querySelector(".slide.active .widget-token-picker");
    if (!picker || !/^[1-9]$/.test(event.key) || Number(event.key) > tokenCount(picker)) return;
    selectToken(picker, Number(event.key) - 1);
    event.stopPropagation();
  }
}
