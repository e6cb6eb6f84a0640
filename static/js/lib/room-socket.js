// A live room's WebSocket (/ws/rooms/{code}): says hello as a follower or as the presenter, hands on
// each state, and reconnects after a lost connection with exponential backoff and jitter (the server
// restarting, a worker dying, Redis away), so that the page resyncs as soon as a server can serve the
// room again. Events: "state" (detail: the state message) and "status" (detail: {status, reason}):
//   connecting · live · reconnecting · ended (unknown room: it expired; 4410: the presenter ended it)
//   · refused (wrong secret…). After ended or refused it does not reconnect.

const FINAL = { 4404: "ended", 4410: "ended", 4403: "refused", 1008: "refused", 1009: "refused" };
const FIRST_DELAY = 250; // ms; doubles each attempt up to MAX_DELAY, then a random part of it
const MAX_DELAY = 4000;

export function backoff(attempt, random = Math.random) {
  const ceiling = Math.min(MAX_DELAY, FIRST_DELAY * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

/** A follower's token (random, kept in this tab): after a reconnect the room knows its answer. */
export function followerToken(code) {
  const key = `attention-talk-follower:${code}`;
  try {
    const kept = sessionStorage.getItem(key);
    if (kept && /^[A-Za-z0-9_-]{16,64}$/.test(kept)) return kept;
  } catch { /* storage off: a token for this page only */ }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  try { sessionStorage.setItem(key, token); } catch { /* storage off */ }
  return token;
}

export class RoomSocket extends EventTarget {
  constructor(code, hello, { url = null } = {}) {
    super();
    this.code = code;
    this.hello = hello;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = url ?? `${scheme}//${location.host}/ws/rooms/${encodeURIComponent(code)}`;
    this.attempt = 0;
    this.status = "connecting";
    this.ws = null;
    this.stopped = false;
    this.timer = null;
  }

  start() { this.connect(); return this; }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close(1000, "page closed");
  }

  get open() { return this.status === "live" && this.ws?.readyState === WebSocket.OPEN; }

  send(message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  setStatus(status, reason = "") {
    this.status = status;
    this.dispatchEvent(new CustomEvent("status", { detail: { status, reason } }));
  }

  connect() {
    if (this.stopped) return;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => ws.send(JSON.stringify(this.hello)));
    ws.addEventListener("message", (e) => this.receive(e.data));
    ws.addEventListener("close", (e) => this.closed(e));
  }

  receive(data) {
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    if (msg?.type === "error") { this.lastError = String(msg.message); return; }
    if (msg?.type === "tally" || msg?.type === "yours") { this.dispatchEvent(new CustomEvent(msg.type, { detail: msg })); return; }
    if (msg?.type !== "state") return;
    if (this.status !== "live") { this.attempt = 0; this.setStatus("live"); }
    this.dispatchEvent(new CustomEvent("state", { detail: msg }));
  }

  closed(event) {
    if (this.stopped) return;
    const final = FINAL[event.code];
    if (final) { this.setStatus(final, this.lastError || event.reason); return; }
    this.setStatus("reconnecting", event.reason);
    this.timer = setTimeout(() => this.connect(), backoff(this.attempt++));
  }
}
