// The speaker view's live room: "Start live room" (or R) asks the server for a room (POST /api/rooms),
// keeps its secret in this window's sessionStorage only, and drives the room from here (RoomDriver):
// every step of the talk reaches the followers. The bar shows the room's code, how many follow, and
// the connection; Q shows the join QR code on the audience screen; "Phone remote" shows the QR code
// of the remote's link (its secret in the link's fragment, never sent in a URL). "End room" ends it
// for everyone ({"type": "end"}: the server closes every socket of it with 4410): a first click arms
// the button for a few seconds, a second ends the room; nothing modal, so the keys keep working.
import { element } from "../lib/element.js";
import { fetchJson } from "../lib/fetch-json.js";
import { openRoomChannel } from "../lib/room-link.js";
import { RoomSocket } from "../lib/room-socket.js";
import { Controller } from "./controller.js";
import { RoomDriver } from "./room-driver.js";
import { QrRequest } from "./room-qr-request.js";

const STATUS = { connecting: "connecting…", live: "live", reconnecting: "reconnecting…",
  ended: "room ended", refused: "room refused this window" };
const END_ARMED_MS = 4000; // how long "End room" waits for its confirming click

export class RoomPresenterController extends Controller {
  constructor(player, root, frames = null) {
    super(player);
    this.frames = frames;
    this.deck = player.manifest.id;
    this.key = `attention-talk-room:${this.deck}`;
    this.channel = openRoomChannel(this.deck);
    this.room = null;
    this.ui = this.build(root);
    this.endButton = this.buildEnd(this.ui.bar);
    player.register("room", () => this.start());
    this.qrRequest = new QrRequest(this.channel, this.deck, this.ui.bar, () => this.announce());
    player.register("qr", () => this.qrRequest.ask());
    this._onMessage = (e) => { if (e.data?.type === "ask") this.announce(); };
    this._onClose = () => this.toggleRemote(false); // Esc
  }

  build(root) {
    const bar = element("div", { className: "room-bar", attrs: { role: "group", "aria-label": "Live room" } },
      root.querySelector(".presenter-bar"));
    const start = element("button", { className: "room-button room-start", text: "Start live room",
      attrs: { type: "button", id: "room-start", "aria-keyshortcuts": "R" } }, bar);
    const info = element("p", { className: "room-info", attrs: { id: "room-info", "aria-live": "polite" } }, bar);
    const code = element("strong", { className: "room-code", attrs: { id: "room-code" } }, info);
    const followers = element("span", { className: "room-followers", attrs: { id: "room-followers" } }, info);
    const status = element("span", { className: "room-status", attrs: { id: "room-status" } }, info);
    const tally = element("span", { className: "room-tally", attrs: { id: "room-tally" } }, info);
    const qr = element("button", { className: "room-button", text: "QR on screen",
      attrs: { type: "button", id: "room-qr-show", "aria-keyshortcuts": "Q" } }, bar);
    const remote = element("button", { className: "room-button", text: "Phone remote",
      attrs: { type: "button", id: "room-remote", "aria-expanded": "false", "aria-controls": "room-remote-panel" } }, bar);
    const panel = element("div", { className: "room-remote-panel", attrs: { id: "room-remote-panel", role: "dialog",
      "aria-label": "Phone remote" } }, root);
    element("p", { className: "room-remote-title", text: "Scan with your phone to step the talk from it" }, panel);
    const img = element("img", { className: "room-remote-qr", attrs: { alt: "QR code of the phone remote's link" } }, panel);
    const link = element("a", { className: "room-remote-link", text: "Open the remote here",
      attrs: { target: "_blank", rel: "noopener" } }, panel);
    const close = element("button", { className: "room-button", text: "Close", attrs: { type: "button" } }, panel);
    panel.hidden = true;
    close.addEventListener("click", () => this.toggleRemote(false));
    start.addEventListener("click", (e) => { e.currentTarget.blur(); this.start(); });
    qr.addEventListener("click", (e) => { e.currentTarget.blur(); this.player.perform("qr"); });
    remote.addEventListener("click", (e) => { e.currentTarget.blur(); this.toggleRemote(); });
    return { bar, start, info, code, followers, status, tally, qr, remote, panel, img, link };
  }

  bind() {
    super.bind();
    this.channel?.addEventListener("message", this._onMessage);
    this.player.addEventListener("close", this._onClose);
    this.resume();
    return this;
  }

  unbind() {
    super.unbind();
    this.channel?.removeEventListener("message", this._onMessage);
    this.player.removeEventListener("close", this._onClose);
  }

  destroy() { this.unbind(); this.stopRoom(); this.qrRequest.destroy(); this.channel?.close(); }

  resume() {
    let saved = null;
    try { saved = JSON.parse(sessionStorage.getItem(this.key) || "null"); } catch { /* storage off */ }
    if (saved?.code && saved?.presenter_secret) this.open(saved);
    else this.render();
  }

  async start() {
    if (this.room && this.socket?.status !== "ended") return;
    this.ui.start.disabled = true;
    try {
      const body = await fetchJson("/api/rooms", { method: "POST", headers: { "content-type": "application/json" },
        body: JSON.stringify({ deck: this.deck }) }, { feature: "A live room" });
      try { sessionStorage.setItem(this.key, JSON.stringify(body)); } catch { /* storage off: this window only */ }
      this.open(body);
    } catch (err) {
      this.showFailure(err);
    } finally {
      this.ui.start.disabled = false;
    }
  }

  /** Why no room could start, in the bar; in a static export, a link to the page that explains. */
  showFailure(err) {
    this.ui.status.textContent = err.needsServer ? err.message : `could not start a room: ${err.message}`;
    if (err.help) {
      const why = element("a", { className: "room-help", text: "What needs the server", attrs: { href: err.help } });
      this.ui.status.append(" · ", why);
    }
  }

  open(room) {
    this.stopRoom();
    this.room = room;
    this.socket = new RoomSocket(room.code, { type: "hello", role: "presenter", secret: room.presenter_secret });
    this.driver = new RoomDriver(this.player, this.socket, { lead: true, onState: (msg) => this.counted(msg),
      before: (from, to) => this.revealing(from, to) }).bind();
    this.socket.addEventListener("tally", (e) => this.tallied(e.detail));
    this.socket.addEventListener("status", () => this.render());
    this.socket.start();
    this.announce();
    this.render();
  }

  stopRoom() {
    this.driver?.destroy();
    this.socket?.stop();
    this.driver = this.socket = null;
  }

  announce() {
    if (!this.room) return;
    const spoken = this.room.code.match(/.{1,3}/g).join("-");
    this.channel?.postMessage({ type: "room", code: this.room.code, spoken, join: this.room.join_url });
  }

  /** Moving on from a question step to its reveal: the room's question closes first (presenter only). */
  revealing(from, to) {
    const frame = this.frames?.peek(this.player.slides[from.slide - 1].id, from.step);
    const next = this.player.following(from);
    if (frame?.question && next && next.slide === to.slide && next.step === to.step) {
      this.socket?.send({ type: "reveal", slide: from.slide, step: from.step });
    }
  }

  /** The room's answers to the question on its step: in the bar, and to the audience screen. */
  tallied(msg) {
    const frame = this.frames?.peek(this.player.slides[msg.slide - 1]?.id, msg.step);
    if (!frame?.question) return;
    const n = msg.answered;
    this.ui.tally.textContent = `${n} ${n === 1 ? "answer" : "answers"}${msg.revealed ? " · revealed" : ""}`;
    this.channel?.postMessage({ type: "tally", id: frame.question.id, answered: n, counts: msg.counts });
  }

  counted(msg) {
    const n = msg.followers;
    this.ui.followers.textContent = `${n} ${n === 1 ? "follower" : "followers"}`;
    this.ui.bar.dataset.followers = String(n);
  }

  async toggleRemote(force) {
    const panel = this.ui.panel;
    panel.hidden = !(force ?? panel.hidden);
    this.ui.remote.setAttribute("aria-expanded", String(!panel.hidden));
    if (panel.hidden || !this.room || this.ui.img.dataset.code === this.room.code) return;
    const res = await fetch(`/api/rooms/${this.room.code}/remote-qr`, { method: "POST",
      headers: { "content-type": "application/json" }, body: JSON.stringify({ secret: this.room.presenter_secret }) });
    if (!res.ok || !(res.headers.get("content-type") || "").startsWith("image/svg+xml")) return;
    this.ui.img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(await res.text())}`;
    this.ui.img.dataset.code = this.room.code;
    this.ui.link.href = this.room.remote_url;
  }

  render() {
    const status = this.socket?.status;
    const ended = status === "ended" || status === "refused";
    const on = Boolean(this.room) && !ended;
    this.renderEnd(on);
    this.ui.bar.dataset.room = on ? status : "off";
    this.ui.start.hidden = on;
    this.ui.qr.hidden = this.ui.remote.hidden = !on;
    if (!on) this.ui.panel.hidden = true;
    this.ui.code.textContent = this.room ? `Room ${this.room.code.match(/.{1,3}/g).join("-")}` : "";
    this.ui.status.textContent = status ? STATUS[status] : "";
    if (ended) {
      try { sessionStorage.removeItem(this.key); } catch { /* storage off */ }
      this.room = null;
    }
  }

  // ---------- ending the room ----------

  buildEnd(bar) {
    const button = element("button", { className: "room-button room-end", text: "End room",
      attrs: { type: "button", id: "room-end", "aria-describedby": "room-end-hint" } }, bar);
    element("span", { className: "room-end-hint", text: "Ends the room for every follower and the remote",
      attrs: { id: "room-end-hint", hidden: "" } }, bar);
    button.addEventListener("click", (e) => { e.currentTarget.blur(); this.endClicked(); });
    return button;
  }

  /** First click arms (for END_ARMED_MS), the second ends the room: a stray click ends nothing. */
  endClicked() {
    if (this.endButton.dataset.armed !== "true") { this.armEnd(true); return; }
    this.armEnd(false);
    if (!this.socket?.send({ type: "end" })) this.ui.status.textContent = "not connected: cannot end the room now";
  }

  armEnd(armed) {
    clearTimeout(this.endTimer);
    this.endButton.dataset.armed = String(armed);
    this.endButton.textContent = armed ? "Click again to end the room" : "End room";
    if (armed) this.endTimer = setTimeout(() => this.armEnd(false), END_ARMED_MS);
  }

  renderEnd(on) {
    this.endButton.hidden = !on;
    if (!on && this.endButton.dataset.armed === "true") this.armEnd(false);
  }
}
