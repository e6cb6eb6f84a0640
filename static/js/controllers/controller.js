// Base for controllers: bind() subscribes to the player, update(state) reacts, destroy() cleans up.
export class Controller {
  constructor(player) {
    this.player = player;
    this._onStep = (e) => this.update(e.detail.state, e.detail);
  }
  bind() { this.player.addEventListener("stepchange", this._onStep); return this; }
  unbind() { this.player.removeEventListener("stepchange", this._onStep); }
  update(_state, _detail) {}
  destroy() { this.unbind(); }
}
