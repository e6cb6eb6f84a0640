// A follower's page (/join/{code}): the talk follows the presenter's room, slide, step and blackout.
// The follower may wander off with any navigation key; the "Live" badge (or C) brings them back to
// where the presenter is. The badge says which it is: live, not live, reconnecting, or ended.
import { element } from "../lib/element.js";
import { RoomSocket, followerToken } from "../lib/room-socket.js";
import { Controller } from "./controller.js";

const TEXT = {
  live: ["Live", "Following the presenter"],
  away: ["Catch up", "You left the presenter: press C or this button to catch up"],
  connecting: ["Connecting…", "Joining the live room"],
  reconnecting: ["Reconnecting…", "Lost the live room: trying again"],
  ended: ["Room ended", "This live room has ended or expired"],
  refused: ["Not live", "The live room refused this page"],
};

export class RoomFollowerController extends Controller {
  constructor(player, root, room, { socket = null } = {}) {
    super(player);
    this.room = room;
    this.root = root;
    this.socket = socket ?? new RoomSocket(room.code, { type: "hello", role: "follower", token: followerToken(room.code) });
    this.live = true;
    this.latest = null;
    this.badge = this.makeBadge(root);
    player.register("live", () => this.catchUp());
    this._onState = (e) => this.receive(e.detail);
    this._onStatus = (e) => { this.noteEnd(e.detail); this.render(); };
    this._onPause = (e) => this.update(e.detail.state, e.detail);
    this._onClick = () => this.catchUp();
  }

  makeBadge(root) {
    const badge = element("button", { className: "live-badge", attrs: { type: "button", id: "live-badge" } }, root);
    element("span", { className: "live-dot", attrs: { "aria-hidden": "true" } }, badge);
    element("span", { className: "live-label" }, badge);
    return badge;
  }

  bind() {
    super.bind();
    this.player.addEventListener("statechange", this._onPause);
    this.socket.addEventListener("state", this._onState);
    this.socket.addEventListener("status", this._onStatus);
    this.badge.addEventListener("click", this._onClick);
    this.socket.start();
    this.render();
    this.root.dispatchEvent(new CustomEvent("quizroom", { detail: this.quizRoom() })); // controllers/quiz.js
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onPause);
    this.socket.removeEventListener("state", this._onState);
    this.socket.removeEventListener("status", this._onStatus);
    this.badge.removeEventListener("click", this._onClick);
  }

  destroy() { this.unbind(); this.socket.stop(); }

  /** A move this page made by itself (a key, a swipe, the overview, Back): the follower wanders off. */
  update(_state, { source } = {}) {
    if (source === "room" || source === "start" || !this.live) return;
    this.live = false;
    this.render();
  }

  receive(msg) {
    this.latest = msg;
    if (this.live) this.apply(msg);
    this.render();
  }

  apply(msg) {
    this.player.go(msg.slide, msg.step, { source: "room" });
    this.player.set({ paused: msg.paused }, { source: "room" });
  }

  catchUp() {
    this.live = true;
    if (this.latest) this.apply(this.latest);
    this.render();
    this.badge.blur();
  }

  /** What the question panel (controllers/quiz.js) needs of the room: the socket, whether this page
   * follows the presenter live on `frame`'s step, and whether that question is revealed. */
  quizRoom() {
    const here = (frame) => this.latest && this.latest.slide === frame.slide_number && this.latest.step === frame.step;
    return { socket: this.socket, isLive: (frame) => this.live && this.socket.status === "live" && here(frame),
      revealed: (frame) => Boolean(this.latest?.revealed) && here(frame) };
  }

  /** Why the room ended, when it has (the presenter ended it, or it expired): the badge's title. */
  noteEnd({ status, reason }) {
    this.endedBecause = status === "ended" && reason ? reason : null;
  }

  render() {
    const status = this.socket.status;
    const mode = status === "live" ? (this.live ? "live" : "away") : status;
    const [label, fixedTitle] = TEXT[mode] ?? TEXT.connecting;
    const title = mode === "ended" && this.endedBecause ? `This live room is over: ${this.endedBecause}` : fixedTitle;
    this.badge.dataset.live = mode;
    this.badge.lastChild.textContent = label;
    this.badge.title = title;
    this.badge.setAttribute("aria-label", `${label}: ${title} (room ${this.room.spoken})`);
  }
}
