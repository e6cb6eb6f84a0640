// Questions in the talk (a step's `question:`, frames/quiz.py): on a question step the panel asks
// for a guess (or a skip); on the next step, the reveal, it shows the answer, whether the guess was
// right, how far off and why. The answer is shown only after a guess or a skip: a student who went
// straight to the reveal is asked first. Guesses are kept in this tab only (sessionStorage).
//
// In a live room: a follower's guess also goes to the room ({"type": "answer"}, only while it follows
// the presenter live on the question step) and may change until the presenter reveals; the audience
// screen of a presenter's browser shows the room's spread (relayed by the speaker view over the room
// channel, lib/room-link.js) instead of asking. A follower's page says so with "quizroom" on the root
// (controllers/room-follower.js, detail: its quizRoom()).
import { checkRoomMessage, openRoomChannel } from "../lib/room-link.js";
import { renderAsk, renderReveal, renderTally } from "../views/quiz.js";
import { decorate, markAnswer, stageTargets } from "../views/quiz-stage.js";
import { Controller } from "./controller.js";

const SHEET = "(max-width: 700px)"; // rooms.css: below this width the panel is a sheet along the bottom

const KEY = "attention-talk-quiz:";

export class QuizController extends Controller {
  /** `room`: a follower's {socket, isLive()} (answers go to the room), or null. */
  constructor(player, root, frames, { room = null } = {}) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.room = room;
    this.key = KEY + player.manifest.id;
    this.guesses = this.load();
    this.draft = null;
    this.tallies = new Map(); // question id → the room's spread (audience screen)
    this.shown = null;
    this.undoStage = null; // takes the choices off the drawing (views/quiz-stage.js)
    // A drawing redrawn in place (a widget re-rendered on a resize, say) loses its choices: ask again.
    this.redrawn = new MutationObserver(() => {
      if (this.undoStage && !this.stageEls?.[0]?.isConnected && this.shown?.question) this.ask(this.shown);
    });
    this.panel = document.createElement("aside");
    this.panel.className = "quiz-panel";
    this.panel.id = "quiz-panel";
    this.panel.setAttribute("aria-label", "Question");
    this.panel.hidden = true;
    root.append(this.panel);
    this.channel = room || document.getElementById("room-data") ? null : openRoomChannel(player.manifest.id);
    this._onDrawn = (e) => this.show(e.detail);
    this._onChannel = (e) => this.heard(e.data);
    this._onYours = (e) => this.confirmed(e.detail);
    this._onRoom = (e) => this.joined(e.detail);
    root.addEventListener("quizroom", this._onRoom);
  }

  /** This page follows a live room: answers go there; the audience channel is not for it. */
  joined(room) {
    this.room?.socket.removeEventListener("yours", this._onYours);
    this.room = room;
    this.channel?.removeEventListener("message", this._onChannel);
    this.channel?.close();
    this.channel = null;
    room.socket.addEventListener("yours", this._onYours);
    if (this.shown) this.show({ slide: this.shown.slide, step: this.shown.step });
  }

  bind() {
    super.bind();
    this.root.addEventListener("framedrawn", this._onDrawn);
    this.channel?.addEventListener("message", this._onChannel);
    this.room?.socket.addEventListener("yours", this._onYours);
    const frame = this.player.currentSlide && this.frames.peek(this.player.currentSlide.id, this.player.state.step);
    if (frame) this.show({ slide: frame.slide, step: frame.step });
    return this;
  }

  unbind() {
    super.unbind();
    this.root.removeEventListener("framedrawn", this._onDrawn);
    this.channel?.removeEventListener("message", this._onChannel);
    this.room?.socket.removeEventListener("yours", this._onYours);
  }

  destroy() { this.clearStage(); this.unbind(); this.root.removeEventListener("quizroom", this._onRoom); this.channel?.close(); this.panel.remove(); }

  load() {
    try { return JSON.parse(sessionStorage.getItem(this.key) || "{}") ?? {}; } catch { return {}; }
  }

  save() {
    try { sessionStorage.setItem(this.key, JSON.stringify(this.guesses)); } catch { /* storage off: this page only */ }
  }

  /** A position change hides the panel until the new step's frame is drawn (framedrawn). */
  update(state) {
    const frame = this.frames.peek(this.player.slides[state.slide - 1].id, state.step);
    // the step shown already (a frame at hand is drawn, framedrawn, before the step is announced; a
    // follower is sent to the step it is on): its question stays on the drawing
    if (frame && this.shown && frame.slide === this.shown.slide && frame.step === this.shown.step) return;
    this.clearStage();
    if (!frame || !(frame.question || frame.reveal)) this.hide();
  }

  hide() {
    this.panel.hidden = true;
    this.shown = null;
    delete this.root.dataset.quiz;
    this.panel.parentElement?.classList.remove("quiz-on", "quiz-reveal");
  }

  clearStage() {
    this.redrawn.disconnect();
    this.undoStage?.();
    this.undoStage = this.stageEls = null;
  }

  show({ slide, step }) {
    const frame = this.frames.peek(slide, step);
    this.draft = null;
    this.clearStage();
    const first = !this.seen; // the page's first step: opened by its link (or reloaded) at this step
    this.seen = true;
    if (!frame?.question && !frame?.reveal) { this.asked = null; this.hide(); return; }
    this.shown = frame;
    this.dock(frame.question ? "quiz-on" : "quiz-reveal");
    if (frame.question) this.ask(frame);
    else this.reveal(frame, first);
    this.panel.hidden = false;
  }

  /** On a stage (not a phone's sheet, not the reading layout): a question takes the caption's place
   * in the caption bar and its answer stands under the caption, in the bar's own height (rooms.css),
   * so the drawing keeps its size; a token or cell question is asked on the drawing itself.
   * Elsewhere the panel floats over the page. */
  dock(mode) {
    const bar = this.root.querySelector("#stage .caption-bar");
    this.docked = Boolean(bar) && !document.documentElement.classList.contains("reading")
      && !window.matchMedia(SHEET).matches;
    if (this.docked && this.panel.parentElement !== bar) bar.prepend(this.panel);
    else if (!this.docked && this.panel.parentElement !== this.root) this.root.append(this.panel);
    this.panel.classList.toggle("quiz-docked", this.docked);
    this.barMode(mode);
  }

  /** "quiz-on": the question in the caption's place; "quiz-reveal": the answer under the caption. */
  barMode(mode) {
    const bar = this.panel.parentElement;
    if (!bar?.classList.contains("caption-bar")) return;
    bar.classList.toggle("quiz-on", this.docked && mode === "quiz-on");
    bar.classList.toggle("quiz-reveal", this.docked && mode === "quiz-reveal");
  }

  ask(frame, note = "") {
    const q = frame.question;
    const tally = this.tallies.get(q.id);
    this.root.dataset.quiz = tally ? "room" : "ask";
    if (tally) { this.clearStage(); this.panel.dataset.mode = "tally"; this.renderRoomTally(q, tally); return; }
    this.asked = q.id; // stepping on from here without a guess is a skip (reveal)
    const saved = this.guesses[q.id];
    const pick = this.draft ?? saved?.pick ?? null;
    const revealed = this.room?.revealed?.(frame) ?? false;
    // a choice picked by a key keeps the focus (one clicked does not: the arrows step the talk then)
    const keyed = document.activeElement?.matches(":focus-visible");
    const focused = keyed ? this.stageEls?.indexOf(document.activeElement) ?? -1 : -1;
    this.clearStage();
    const section = this.root.querySelector("#stage .slide.active");
    const targets = this.docked ? stageTargets(section, q) : null;
    const on = {
      pick: (p, { quiet = false } = {}) => { this.draft = p; if (!quiet) this.ask(frame); },
      answer: (p) => this.answer(frame, q.kind === "estimate" && this.draft ? this.draft : p), // the slider moved quietly
      skip: this.room ? null : () => this.skip(frame),
    };
    renderAsk(this.panel, q, pick, on, { locked: revealed, note: note || this.noteFor(q, saved, targets), onStage: Boolean(targets) });
    if (!targets) return;
    this.undoStage = decorate(targets, q, pick, on.answer, revealed);
    this.stageEls = targets.els.flat(); // the choices drawn (the first one gone: the drawing was redrawn)
    if (focused >= 0 && !revealed) this.stageEls[focused]?.focus({ preventScroll: true });
    this.redrawn.observe(section, { childList: true, subtree: true });
  }

  noteFor(q, saved, targets = null) {
    if (!saved?.pick) return targets ? `Pick one of the outlined ${targets.kind === "cell" ? "cells" : "labels"} in the drawing.` : "";
    if (!this.room) return "Your guess is in: the next step shows the answer.";
    return saved.sent ? "Your answer is in: you may change it until the reveal." : "Answers count only while you follow live.";
  }

  answer(frame, pick) {
    const q = frame.question;
    const sent = this.room ? this.room.isLive(frame) && this.room.socket.send({ type: "answer",
      slide: frame.slide_number, step: frame.step, pick }) : false;
    this.guesses[q.id] = { pick, sent };
    this.draft = null;
    this.save();
    this.ask(frame);
  }

  skip(frame) {
    this.guesses[frame.question.id] = { skipped: true };
    this.save();
    this.player.next();
  }

  /** The room's record of this follower's answer (after a reconnect, or the echo of a send). */
  confirmed(msg) {
    const frame = this.shown;
    if (!frame?.question || frame.slide_number !== msg.slide || frame.step !== msg.step || !Array.isArray(msg.pick)) return;
    this.guesses[frame.question.id] = { pick: msg.pick, sent: true };
    this.save();
    this.ask(frame);
  }

  reveal(frame, opened = false) {
    const r = frame.reveal;
    const saved = this.guesses[r.question.id];
    this.root.dataset.quiz = "reveal";
    this.clearStage();
    if (!saved && !this.room && !this.tallies.has(r.question.id)) {
      // stepped on from the question without a guess (a presenter's clicker, a student moving on), or
      // the page opened here by its link: a skip, so the step looks as it does when stepped to;
      // jumped to from elsewhere in the talk (the overview, a number, a later step): asked first
      if (this.asked !== r.question.id && !opened) { this.askFirst(frame); return; }
      this.guesses[r.question.id] = { skipped: true };
      this.save();
    }
    this.barMode("quiz-reveal");
    renderReveal(this.panel, r, saved?.pick ?? null);
    if (this.docked) this.undoStage = markAnswer(this.root.querySelector("#stage .slide.active"), r);
    const tally = this.tallies.get(r.question.id);
    if (tally) this.renderRoomTally(r.question, tally, true);
    this.root.dispatchEvent(new Event("cornerschange")); // the answer's line keeps clear of the corners
  }

  /** Straight to the reveal without a guess: back to the question, or show it (a skip). */
  askFirst(frame) {
    const q = frame.reveal.question;
    this.panel.replaceChildren();
    this.panel.dataset.mode = "first";
    this.root.dataset.quiz = "first";
    this.barMode("quiz-on"); // not revealed yet: the question's line, in the caption's place
    const p = document.createElement("p");
    p.className = "quiz-prompt";
    p.textContent = `Guess first: ${q.prompt}`;
    const back = document.createElement("button");
    back.type = "button";
    back.className = "quiz-button quiz-back";
    back.textContent = "Back to the question";
    back.addEventListener("click", () => this.player.prev());
    const show = document.createElement("button");
    show.type = "button";
    show.className = "quiz-button quiz-skip";
    show.textContent = "Show the answer";
    show.addEventListener("click", () => { this.guesses[q.id] = { skipped: true }; this.save(); this.reveal(frame); });
    const row = document.createElement("div");
    row.className = "quiz-actions";
    row.append(back, show);
    this.panel.append(p, row);
  }

  renderRoomTally(q, tally, after = false) {
    const box = after ? document.createElement("div") : this.panel;
    if (!after) {
      this.panel.replaceChildren();
      const h = document.createElement("h2");
      h.className = "quiz-prompt";
      h.textContent = q.prompt;
      this.panel.append(h);
      const spread = document.createElement("div");
      spread.className = "quiz-room-spread";
      this.panel.append(spread);
      renderTally(spread, q, tally);
      return;
    }
    box.className = "quiz-room-spread quiz-after";
    renderTally(box, q, tally);
    this.panel.append(box);
  }

  /** A tally relayed by this browser's speaker view (checked: nothing heard here is trusted). */
  heard(data) {
    if (checkRoomMessage(data) || data?.type !== "tally" || typeof data.id !== "string") return;
    const answered = Number.isInteger(data.answered) ? data.answered : 0;
    const counts = {};
    for (const [k, v] of Object.entries(data.counts ?? {})) if (/^[0-9,]{1,40}$/.test(k) && Number.isInteger(v)) counts[k] = v;
    this.tallies.set(data.id.slice(0, 120), { answered, counts });
    const frame = this.shown;
    if (frame?.question?.id === data.id) this.ask(frame);
    else if (frame?.reveal?.question.id === data.id) this.reveal(frame);
  }
}
