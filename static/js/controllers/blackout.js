// Blackout (B or .) and white-out (W): the audience screen goes black or white; any key returns.
// The state is the player's `paused` (false, "black" or "white"), so it follows the speaker view.
// In the speaker view the same state shows as a shade over the "current" preview instead.
import { Controller } from "./controller.js";
import { claim, fieldOwnsKey, isModifierOnly, listenFirst } from "./keys.js";

export class BlackoutController extends Controller {
  constructor(player, host, { label = "" } = {}) {
    super(player);
    this.layer = document.createElement("div");
    this.layer.className = "blackout";
    this.layer.hidden = true;
    this.layer.dataset.blackout = "";
    if (label) {
      const p = document.createElement("p");
      p.className = "blackout-label";
      this.layer.appendChild(p);
      this.label = label;
    }
    host.appendChild(this.layer);
    const toggle = (tone) => () => this.player.set({ paused: this.player.state.paused === tone ? false : tone });
    player.register("blackout", toggle("black"));
    player.register("whiteout", toggle("white"));
    this._onKey = (e) => this.onKey(e);
    this._onState = (e) => this.update(e.detail.state);
    this._onClick = () => this.player.set({ paused: false });
  }

  bind() {
    super.bind();
    this.player.addEventListener("statechange", this._onState);
    this.stopKeys = listenFirst(this._onKey);
    this.layer.addEventListener("click", this._onClick);
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onState);
    this.stopKeys?.();
    this.layer.removeEventListener("click", this._onClick);
  }

  onKey(event) {
    if (!this.player.state.paused || isModifierOnly(event) || fieldOwnsKey(event)) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return; // browser shortcuts still work
    claim(event);
    this.player.set({ paused: false });
  }

  update(state) {
    const tone = state.paused;
    this.layer.hidden = !tone;
    this.layer.dataset.blackout = tone || "";
    if (this.label) {
      this.layer.firstChild.textContent = tone ? this.label.replace("{tone}", tone) : "";
    }
  }
}
