// One key table (web/keys.py, sent in the page) drives this handler and the help overlay.
import { Controller } from "./controller.js";

export function keyName(event) {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  return event.shiftKey && event.key.length > 1 ? `Shift+${key}` : key;
}

const SLIDER_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);

/** Whether a key belongs to the focused control rather than to the player. A slider keeps only
 * its arrow keys, so a presenter's clicker (PageDown/PageUp) still steps the talk. */
export function ownedByField(el, key) {
  if (!el) return false;
  const tag = el.tagName;
  if (tag === "INPUT" && el.type === "range") return SLIDER_KEYS.has(key);
  return el.isContentEditable || tag === "TEXTAREA" || tag === "SELECT" ||
    (tag === "INPUT" && !["button", "checkbox", "radio", "submit"].includes(el.type));
}

export class KeyboardController extends Controller {
  constructor(player, table, target = document) {
    super(player);
    this.target = target;
    this.bindings = new Map();
    for (const row of table) for (const key of row.keys) this.bindings.set(key, row.action);
    this._onKey = (e) => this.onKey(e);
  }
  bind() { super.bind(); this.target.addEventListener("keydown", this._onKey); return this; }
  unbind() { super.unbind(); this.target.removeEventListener("keydown", this._onKey); }

  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (ownedByField(event.target, event.key)) return;
    const action = this.bindings.get(keyName(event));
    if (action && this.player.perform(action)) event.preventDefault();
  }
}
