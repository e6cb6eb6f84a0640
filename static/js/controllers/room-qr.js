// The audience screen's QR code (Q, or Q in the speaker view): the live room's join link as a QR
// code drawn by the server (/join/{code}/qr.svg), full screen, with the link and the code in words
// for those who type. Esc, Q or a click hides it. The speaker view says which room is open.
import { element } from "../lib/element.js";
import { checkRoomMessage, openRoomChannel } from "../lib/room-link.js";
import { staticSite } from "../lib/site.js";
import { Controller } from "./controller.js";

export class RoomQrController extends Controller {
  constructor(player, root) {
    super(player);
    this.channel = openRoomChannel(player.manifest.id);
    this.room = null;
    this.overlay = this.build(root);
    player.register("qr", () => this.toggle());
    this._onMessage = (e) => this.receive(e.data);
    this._onClose = () => this.toggle(false);
    this._onClick = () => this.toggle(false);
  }

  build(root) {
    const overlay = element("div", { className: "room-qr", attrs: { id: "room-qr", role: "dialog",
      "aria-label": "Join the live room" } }, root);
    overlay.hidden = true;
    element("h2", { className: "room-qr-title", text: "Follow along on your device" }, overlay);
    element("img", { className: "room-qr-code", attrs: { alt: "" } }, overlay);
    element("p", { className: "room-qr-link" }, overlay);
    element("p", { className: "room-qr-words" }, overlay);
    return overlay;
  }

  bind() {
    super.bind();
    this.player.addEventListener("close", this._onClose);
    this.overlay.addEventListener("click", this._onClick);
    this.channel?.addEventListener("message", this._onMessage);
    this.channel?.postMessage({ type: "ask" });
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("close", this._onClose);
    this.overlay.removeEventListener("click", this._onClick);
    this.channel?.removeEventListener("message", this._onMessage);
  }

  destroy() { this.unbind(); this.channel?.close(); }

  receive(data) {
    const msg = checkRoomMessage(data);
    if (msg?.type === "qr") {
      this.toggle();
      this.channel?.postMessage({ type: "qr-shown", shown: !this.overlay.hidden }); // the speaker view waits for it
    }
    if (msg?.type === "room") { this.room = msg; this.render(); }
  }

  render() {
    const img = this.overlay.querySelector(".room-qr-code");
    const link = this.overlay.querySelector(".room-qr-link");
    const words = this.overlay.querySelector(".room-qr-words");
    img.hidden = !this.room;
    if (!this.room) {
      link.textContent = staticSite ? "Live rooms need the server." : "No live room yet.";
      words.textContent = staticSite ? "This copy of the talk is a static export: it plays, but holds no rooms."
        : "Start one in the speaker view: press S, then R.";
      return;
    }
    img.src = `/join/${this.room.code}/qr.svg`;
    img.alt = `QR code of ${this.room.join}`;
    link.textContent = this.room.join;
    words.textContent = `Room code ${this.room.spoken}`;
  }

  toggle(force) {
    const show = force ?? this.overlay.hidden;
    if (show) this.render();
    this.overlay.hidden = !show;
  }
}
