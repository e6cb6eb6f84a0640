// One key table (web/keys.py, sent in the page) drives this handler and the help overlay. Keys that
// belong to the focused control (a text field, Space on a button, arrows in a picker) are left to it;
// single-character keys are ignored when the user turned them off in the help overlay.
import { Controller } from "./controller.js";
import { controlOwnsKey, fieldOwnsKey, isCharacterKey, keyName, singleKeysOn } from "./keys.js";

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
    if (fieldOwnsKey(event) || controlOwnsKey(event)) return;
    if (isCharacterKey(event) && !singleKeysOn()) return;
    const action = this.bindings.get(keyName(event));
    if (action && this.player.perform(action)) event.preventDefault();
  }
}
