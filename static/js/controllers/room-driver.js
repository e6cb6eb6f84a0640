// Drives a live room from a presenter's page (the speaker view, the phone remote): every local move
// goes to the room as {"type": "go"}, and moves made elsewhere (the remote, the other presenter
// page) come back as states and move this page's player (source "room").
//
// The server echoes each go back as a state; an echo of a move we sent is not news (it would step
// us back if we had moved on meanwhile), so moves in flight are remembered and their echoes dropped.
// On (re)connecting, `lead` says who is right: the speaker view pushes its own position (the
// audience screen followed it while the room was away); the remote adopts the room's.
import { Controller } from "./controller.js";

const same = (a, b) => a.slide === b.slide && a.step === b.step && a.paused === b.paused;

export class RoomDriver extends Controller {
  /** `before(from, to)`: called before a local move is sent (the speaker view reveals a question). */
  constructor(player, socket, { lead = false, onState = () => {}, before = () => {} } = {}) {
    super(player);
    this.socket = socket;
    this.before = before;
    this.lead = lead;
    this.onState = onState;
    this.inFlight = [];
    this.fresh = true; // the next state is the answer to our hello
    this._onRoomState = (e) => this.receive(e.detail);
    this._onStatus = (e) => { if (e.detail.status !== "live") this.fresh = true; };
    this._onPause = (e) => this.update(e.detail.state, e.detail);
  }

  bind() {
    super.bind();
    this.player.addEventListener("statechange", this._onPause);
    this.socket.addEventListener("state", this._onRoomState);
    this.socket.addEventListener("status", this._onStatus);
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onPause);
    this.socket.removeEventListener("state", this._onRoomState);
    this.socket.removeEventListener("status", this._onStatus);
  }

  position() {
    const { slide, step, paused } = this.player.state;
    return { slide, step, paused };
  }

  update(state, { source, previous } = {}) {
    if (source === "room" || source === "start") return;
    if (previous) this.before(previous, state);
    this.push();
  }

  push() {
    const go = this.position();
    if (this.socket.send({ type: "go", ...go })) this.inFlight.push(go);
  }

  receive(msg) {
    this.onState(msg);
    if (this.fresh) {
      this.fresh = false;
      this.inFlight = [];
      if (this.lead && !same(msg, this.position())) { this.push(); return; }
    }
    const echo = this.inFlight.findIndex((go) => same(go, msg));
    if (echo >= 0) { this.inFlight.splice(0, echo + 1); return; }
    if (this.inFlight.length) return; // a count update from before our move reached the server
    this.player.go(msg.slide, msg.step, { source: "room" });
    this.player.set({ paused: msg.paused }, { source: "room" });
  }
}
