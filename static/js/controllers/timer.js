// The speaker view's clock and elapsed-time timer (pause, reset). The timer's start survives a
// reload of the speaker view (localStorage, per deck); it is local to this window, not synced.
import { Controller } from "./controller.js";

const STALE_MS = 12 * 3600 * 1000; // a timer left from another day starts afresh

function formatElapsed(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return `${h ? `${h}:` : ""}${mm}:${String(sec).padStart(2, "0")}`;
}

export class TimerController extends Controller {
  constructor(player, root, now = () => Date.now()) {
    super(player);
    this.now = now;
    this.key = `attention-talk-timer:${player.manifest.id}`;
    this.elapsedEl = root.querySelector("#elapsed");
    this.clockEl = root.querySelector("#clock");
    this.pauseButton = root.querySelector("#timer-pause");
    this.resetButton = root.querySelector("#timer-reset");
    this.clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
    this.timer = this.load();
    // Blur after a click, so that a clicker's Space or Enter steps the talk instead of pressing it again.
    this._onPause = (e) => { this.togglePause(); e.currentTarget.blur(); };
    this._onReset = (e) => { this.reset(); e.currentTarget.blur(); };
  }

  load() {
    try {
      const t = JSON.parse(localStorage.getItem(this.key) || "null");
      if (t && Number.isFinite(t.start) && this.now() - t.start < STALE_MS) return t;
    } catch (e) { /* storage off or garbled: start afresh */ }
    return { start: this.now(), pausedAt: null };
  }

  save() {
    try { localStorage.setItem(this.key, JSON.stringify(this.timer)); } catch (e) { /* storage off */ }
  }

  bind() {
    super.bind();
    this.pauseButton.addEventListener("click", this._onPause);
    this.resetButton.addEventListener("click", this._onReset);
    this.save();
    this.tick();
    this.interval = setInterval(() => this.tick(), 500);
    return this;
  }

  unbind() {
    super.unbind();
    this.pauseButton.removeEventListener("click", this._onPause);
    this.resetButton.removeEventListener("click", this._onReset);
    clearInterval(this.interval);
  }

  get elapsed() { return (this.timer.pausedAt ?? this.now()) - this.timer.start; }

  togglePause() {
    const t = this.timer, now = this.now();
    this.timer = t.pausedAt === null ? { ...t, pausedAt: now } : { start: t.start + (now - t.pausedAt), pausedAt: null };
    this.save();
    this.tick();
  }

  reset() {
    const now = this.now();
    this.timer = { start: now, pausedAt: this.timer.pausedAt === null ? null : now };
    this.save();
    this.tick();
  }

  tick() {
    const paused = this.timer.pausedAt !== null;
    this.elapsedEl.textContent = formatElapsed(this.elapsed);
    this.elapsedEl.classList.toggle("paused", paused);
    this.pauseButton.textContent = paused ? "Resume" : "Pause";
    this.pauseButton.setAttribute("aria-pressed", String(paused));
    this.clockEl.textContent = this.clockFormat.format(new Date(this.now()));
  }
}
