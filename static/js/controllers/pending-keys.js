// Keys that arrive before their controller. A page binds what its first paint needs and loads the
// rest just after (startup.js); a key whose action no bound controller has registered yet (help,
// overview, jump, blackout, the speaker view…) is held, the rest is loaded, then the held keys are
// pressed again, in order: the first press of any key works, however soon after the page opens.
// While the rest loads every later key waits too, so "G 5 Enter" reaches the jump prompt.
import { Controller } from "./controller.js";
import { claim, controlOwnsKey, fieldOwnsKey, isCharacterKey, keyName, listenFirst, singleKeysOn } from "./keys.js";

export class PendingKeys extends Controller {
  /** `table`: the key table (web/keys.py). The page calls replay() once the rest is bound. */
  constructor(player, table) {
    super(player);
    this.bindings = new Map();
    for (const row of table) for (const key of row.keys) this.bindings.set(key, row.action);
    this.held = [];
    this._onKey = (e) => this.onKey(e);
  }

  bind() { super.bind(); this.stopKeys = listenFirst(this._onKey); return this; }
  unbind() { super.unbind(); this.stopKeys?.(); this.stopKeys = null; }

  /** Whether the key table would act on `event` with an action nobody has registered yet. */
  unknown(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return false;
    if (fieldOwnsKey(event) || controlOwnsKey(event) || (isCharacterKey(event) && !singleKeysOn())) return false;
    const action = this.bindings.get(keyName(event));
    return Boolean(action) && !this.player.actions.has(action);
  }

  onKey(event) {
    if (!this.held.length && !this.unknown(event)) return;
    claim(event);
    this.held.push(event);
  }

  /** Stop holding; press the held keys again, on the elements they were pressed on (every controller
   * listens now). */
  replay() {
    this.unbind();
    const held = this.held;
    this.held = [];
    for (const e of held) {
      const target = e.target?.isConnected ? e.target : document;
      target.dispatchEvent(new KeyboardEvent("keydown", { key: e.key, code: e.code, shiftKey: e.shiftKey,
        ctrlKey: e.ctrlKey, altKey: e.altKey, metaKey: e.metaKey, repeat: e.repeat, bubbles: true, cancelable: true,
        composed: true }));
    }
  }
}
