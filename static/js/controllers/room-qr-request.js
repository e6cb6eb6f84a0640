// "QR on screen" (Q) in the speaker view: the join QR code is drawn by the talk window, the audience
// screen (controllers/room-qr.js), which answers that it shows or hides it. With no talk window
// open nobody answers, and the speaker view would seem to do nothing: within QR_ANSWER_MS it says so
// instead, with a button that opens the talk window, which shows the QR code as soon as it has
// started (it asks the speaker view for the room; the answer is the room, then "qr"). The room bar
// says where a request is (data-qr: asking, shown, hidden, no-talk-window, opening).
import { element } from "../lib/element.js";
import { checkRoomMessage } from "../lib/room-link.js";
import { talkUrl } from "../lib/site.js";

/** How long the speaker view waits for a talk window's answer; a message between two windows of
 * one browser takes a millisecond or two, a busy or background window a little longer. */
export const QR_ANSWER_MS = 1000;

export class QrRequest {
  /** `channel`: the room channel (lib/room-link.js); `announce()`: tells the talk windows the room. */
  constructor(channel, deckId, bar, announce) {
    this.channel = channel;
    this.deckId = deckId;
    this.bar = bar;
    this.announce = announce;
    this.timer = 0;
    this.opening = false; // a talk window opened from here: show the QR code once it asks
    this.note = this.build(bar);
    this._onMessage = (e) => this.receive(e.data);
    channel?.addEventListener("message", this._onMessage);
  }

  build(bar) {
    const note = element("p", { className: "room-note", attrs: { id: "room-qr-note", role: "status" } }, bar);
    element("span", { text: "No talk window is open to show the QR code." }, note);
    const open = element("button", { className: "room-button", text: "Open the talk window with it",
      attrs: { type: "button", id: "room-qr-open" } }, note);
    open.addEventListener("click", (e) => { e.currentTarget.blur(); this.openTalk(); });
    note.hidden = true;
    return note;
  }

  /** Q: ask the talk windows to show (or hide) the QR code, and notice when none answers. */
  ask() {
    if (!this.channel) { this.noTalkWindow(); return; }
    this.set("asking");
    this.channel.postMessage({ type: "qr" });
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.noTalkWindow(), QR_ANSWER_MS);
  }

  receive(data) {
    const msg = checkRoomMessage(data);
    if (msg?.type === "qr-shown") {
      clearTimeout(this.timer);
      this.note.hidden = true;
      this.set(msg.shown ? "shown" : "hidden");
    } else if (msg?.type === "ask" && this.opening) {
      this.opening = false;
      this.announce();
      this.ask();
    }
  }

  noTalkWindow() {
    this.set("no-talk-window");
    this.note.hidden = false;
  }

  /** The talk window, opened from this click (a browser opens a window only on a user's gesture). */
  openTalk() {
    this.note.hidden = true;
    this.opening = true;
    this.set("opening");
    window.open(talkUrl(this.deckId), `attention-talk-${this.deckId}`)?.focus?.();
  }

  set(state) { this.bar.dataset.qr = state; }

  destroy() {
    clearTimeout(this.timer);
    this.channel?.removeEventListener("message", this._onMessage);
    this.note.remove();
  }
}
