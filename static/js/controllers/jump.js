// Jump: G, then a slide number, then Enter. While the number is being typed, digits, Backspace,
// Enter and Esc belong to this controller; any other key cancels the jump and does its usual job.
// The player's "close" event cancels it too.
import { Controller } from "./controller.js";
import { claim, fieldOwnsKey, isModifierOnly, listenFirst } from "./keys.js";

export class JumpController extends Controller {
  constructor(player, host) {
    super(player);
    this.box = document.createElement("div");
    this.box.className = "jump-prompt";
    this.box.setAttribute("role", "status");
    this.box.hidden = true;
    const label = document.createElement("span");
    label.textContent = "Go to slide ";
    this.field = document.createElement("output");
    this.field.className = "jump-digits";
    const hint = document.createElement("span");
    hint.className = "jump-hint";
    hint.textContent = ` of ${player.slideCount} · Enter`;
    this.box.append(label, this.field, hint);
    host.appendChild(this.box);
    this.digits = null; // null: not collecting
    player.register("jump", () => this.start());
    this._onKey = (e) => this.onKey(e);
    this._onClose = () => { if (this.active) this.cancel(); };
  }

  bind() {
    super.bind();
    this.stopKeys = listenFirst(this._onKey);
    this.player.addEventListener("close", this._onClose);
    return this;
  }

  unbind() {
    super.unbind();
    this.stopKeys?.();
    this.player.removeEventListener("close", this._onClose);
  }

  get active() { return this.digits !== null; }

  start() { this.digits = ""; this.render(); }
  cancel() { this.digits = null; this.render(); }

  render() {
    this.box.hidden = !this.active;
    this.field.textContent = this.digits ?? "";
  }

  onKey(event) {
    if (!this.active || isModifierOnly(event) || fieldOwnsKey(event)) return;
    const key = event.key;
    if (/^[0-9]$/.test(key)) {
      claim(event);
      if (this.digits.length < 4) this.digits += key;
      this.render();
    } else if (key === "Backspace") {
      claim(event);
      this.digits = this.digits.slice(0, -1);
      this.render();
    } else if (key === "Enter") {
      claim(event);
      const n = Number(this.digits);
      this.cancel();
      if (n >= 1) this.player.go(n, 1);
    } else if (key === "Escape") {
      claim(event);
      this.cancel();
    } else {
      this.cancel(); // not claimed: the key table handles it
    }
  }
}
