// Keeps every window of one deck on the same step (the talk and its speaker view) through a
// BroadcastChannel. Every change sends the full state {deck, slide, step, paused}; a window that
// starts (or reloads) says "hello" and adopts the state it hears back, so it catches up at once.
// Only older windows answer a hello: when two windows start together the newer one gives way,
// instead of each adopting the other's state. Moves that arrive from another window carry source
// "sync" and are never sent back.
import { Controller } from "./controller.js";

const channelName = (deckId) => `attention-talk:${deckId}`;
const PAUSED = [false, "black", "white"];
const FIELDS = { hello: ["type", "deck", "since"], state: ["type", "deck", "slide", "step", "paused"] };

/**
 * A message from the channel, checked field by field against this deck, or null: anything else
 * (another deck, a type we do not know, an extra or missing field, a slide or step that is not a
 * whole number inside the deck, a pause that is not false/"black"/"white") is dropped unread.
 * Same-origin pages can post to the channel, so nothing is trusted.
 */
export function checkMessage(msg, player) {
  if (msg === null || typeof msg !== "object" || Object.getPrototypeOf(msg) !== Object.prototype) return null;
  const fields = FIELDS[msg.type];
  if (!fields || msg.deck !== player.manifest.id) return null;
  const keys = Object.keys(msg);
  if (keys.length !== fields.length || !keys.every((k) => fields.includes(k))) return null;
  if (msg.type === "hello") return Number.isFinite(msg.since) ? msg : null;
  const { slide, step, paused } = msg;
  if (!Number.isInteger(slide) || slide < 1 || slide > player.slideCount) return null;
  if (!Number.isInteger(step) || step < 1 || step > player.stepsOf(slide)) return null;
  return PAUSED.includes(paused) ? msg : null;
}

export class SyncController extends Controller {
  constructor(player, { channel = null } = {}) {
    super(player);
    this.deck = player.manifest.id;
    // When this window started (ms since the epoch); a reload is a newer window.
    this.since = performance.timeOrigin + performance.now();
    this.channel = channel ?? (typeof BroadcastChannel === "function"
      ? new BroadcastChannel(channelName(this.deck)) : null);
    this._onMessage = (e) => this.receive(e.data);
    this._onState = (e) => this.update(e.detail.state, e.detail);
  }

  bind() {
    super.bind();
    if (!this.channel) return this;
    this.player.addEventListener("statechange", this._onState);
    this.channel.addEventListener("message", this._onMessage);
    // Alone on the channel, nobody answers and our own state (from the URL) stands.
    this.channel.postMessage({ type: "hello", deck: this.deck, since: this.since });
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onState);
    this.channel?.removeEventListener("message", this._onMessage);
  }

  destroy() { this.unbind(); this.channel?.close(); }

  message() {
    const { slide, step, paused } = this.player.state;
    return { type: "state", deck: this.deck, slide, step, paused };
  }

  send() { this.channel?.postMessage(this.message()); }

  update(_state, { source } = {}) {
    // A move that came from another window, or the start-up announcement, is not news to anyone.
    if (source === "sync" || source === "start") return;
    this.send();
  }

  receive(data) {
    const msg = checkMessage(data, this.player);
    if (!msg) return;
    if (msg.type === "hello") {
      if (!(msg.since < this.since)) this.send(); // a newer window asks: tell it where we are
      return;
    }
    this.player.go(msg.slide, msg.step, { source: "sync" });
    this.player.set({ paused: msg.paused }, { source: "sync" });
  }
}
