// The stage owner: on every step change it shows the step's slide, keeps the root's data-slide /
// data-step in step with the player, and applies the step's frame: the drawing (views/frame.js),
// the caption and narration (the frame is their one source), and the cells the derivation panel
// can explain. It also scales the stage to the window (lib/stage-size.js stageLayout: the whole
// stage, or on a phone held upright and at a larger text size, a readable scale: html.reading, and
// controllers/reading.js shows one part at a time) and says so with "stagefit" on the root.
// Between two steps, views/continuity.js carries the stage over: the old slide leaves while the new
// one enters, and what both frames show travels from its old place to its new one.
import { stageLayout } from "../lib/stage-size.js";
// views/continuity.js is needed from the first step change on, not for the first paint: it is
// fetched once the first frame has been painted (its absence until then means no motion, the
// reduced-motion end state).
let continuity = null;
let continuityAsked = false;
function loadContinuity() {
  if (continuityAsked) return;
  continuityAsked = true;
  requestAnimationFrame(() => setTimeout(() => {
    import("../views/continuity.js").then((m) => { continuity = m; }, (err) => console.warn(err.message));
  }, 0));
}
import { cancelIdle, idle } from "../lib/idle.js";
import { drawFrame } from "../views/frame.js";
import { hold, release, settle } from "../views/moving.js";
import { applyRoom, contentSpan, room } from "../views/room.js";
import { Controller } from "./controller.js";

/** A step's words while its frame is still on the way: the manifest's caption, no narration yet. */
function standIn(slide, step) {
  return { caption: slide.captions[step - 1] ?? "", narration: "" };
}

export class StageController extends Controller {
  /** `caption` shows a step's words, `derivations` explains its cells; both optional. */
  constructor(player, root, frames, { caption = null, derivations = null } = {}) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.caption = caption;
    this.derivations = derivations;
    this.stage = root.querySelector(".stage");
    this.textSize = 1;
    this.layout = { fit: 1, scale: 1, reading: false }; // fit() decides (the speaker view's previews never read)
    this._onResize = () => this.fit();
    this.bar = root.querySelector(".caption-bar");
    this.shown = null; // [section, frame] on screen, for makeRoom when the caption bar changes size
    // Layout read once, not on every step (a read right after drawing forces a layout of the whole
    // stage): the caption bar's top, re-read when the bar changes size (a resize observer runs after
    // layout, before paint), and each slide head's bottom, re-read when the window is resized.
    this.barTop = null;
    this.headBottom = new WeakMap();
    this.barWatch = typeof ResizeObserver === "function" && this.bar ? new ResizeObserver(() => {
      this.barTop = this.bar.offsetTop;
      this.makeRoom();
    }) : null;
    // A slide head is measured the same way, the first time its slide is shown: by an observer,
    // after the layout of the frame that shows it and before that frame is painted, instead of a
    // read in the key's handler that would lay the new slide out twice.
    this.heads = new Set();
    // The next slide's first step, drawn (and laid out) in idle time while the last step of a slide
    // is on screen: its key then shows a drawing already made, as a presenter steps on.
    this.prepared = new WeakMap(); // section → {frame, motion}: the frame drawn into it before its key, its held motion
    this.preparing = null; // the idle callback that will draw it
    this.headWatch = typeof ResizeObserver === "function" ? new ResizeObserver((entries) => {
      for (const { target } of entries) {
        const slide = target.closest(".slide");
        // A slide not shown is not laid out (content-visibility): measured when next shown.
        if (slide.classList.contains("active")) this.headBottom.set(slide, target.offsetTop + target.offsetHeight + 20);
        else this.headBottom.delete(slide);
      }
      this.makeRoom();
    }) : null;
  }

  bind() {
    super.bind();
    window.addEventListener("resize", this._onResize);
    this.barWatch?.observe(this.bar);
    this.fit();
    return this;
  }

  unbind() {
    super.unbind();
    window.removeEventListener("resize", this._onResize);
    this.barWatch?.disconnect();
    this.headWatch?.disconnect();
    this.heads.clear();
  }

  fit() {
    this.barTop = null;
    this.headBottom = new WeakMap();
    for (const head of this.heads) this.watchHead(head); // measured again
    this.layout = stageLayout(window.innerWidth, window.innerHeight, this.textSize);
    this.stage.style.setProperty("--stage-scale", String(this.layout.scale));
    this.stage.style.setProperty("--stage-fit", String(this.layout.fit));
    document.documentElement.classList.toggle("reading", this.layout.reading);
    this.makeRoom();
    this.root.dispatchEvent(new CustomEvent("stagefit", { detail: { ...this.layout } }));
  }

  /** Draw the stage's text `factor` times larger (1 = as designed); see controllers/text-size.js. */
  setTextSize(factor) {
    this.textSize = factor;
    this.fit();
  }

  section(slideId) { return this.stage.querySelector(`.slide[data-slide-id="${CSS.escape(slideId)}"]`); }

  update(state) {
    settle(this.stage); // the last step's motion ends where that step ends; this one starts there
    continuity?.land(this.stage); // and its copies in flight, its leaving slide, are gone at once
    const slide = this.player.slides[state.slide - 1];
    this.root.dataset.slide = slide.id;
    this.root.dataset.step = String(state.step);
    // Where the objects on screen are, read before anything changes (the layout is clean now).
    const [shownSection, shownFrame] = this.shown ?? [];
    const before = shownSection?.classList.contains("active") && continuity
      ? continuity.snapshot(this.stage, shownSection, shownFrame) : null;
    const section = this.section(slide.id);
    for (const s of this.stage.querySelectorAll(".slide.active")) {
      if (s.dataset.slideId === slide.id) continue;
      s.classList.remove("active");
      const was = this.player.slides.findIndex((x) => x.id === s.dataset.slideId);
      continuity?.changeSlides(this.stage, s, section, was > state.slide - 1 ? -1 : 1); // going back: reversed
    }
    section.classList.toggle("active", true); // add() would write the class even when it is there
    // A control left focused on a slide that is no longer shown must not keep the keys.
    const focused = document.activeElement;
    if (focused && focused !== document.body && focused.closest(".slide") && !section.contains(focused)) focused.blur();
    const frame = this.frames.peek(slide.id, state.step);
    if (frame) { this.apply(section, frame, before); return; }
    this.showWords(standIn(slide, state.step));
    this.frames.load(slide.id, state.step).then(() => {
      const now = this.player.state;
      if (now.slide === state.slide && now.step === state.step) {
        this.apply(section, this.frames.peek(slide.id, state.step), before);
      }
    }).catch((err) => this.showFailure(err));
  }

  /** A step whose frame could not be fetched keeps its words and says why its figure is missing
   * (lib/fetch-json.js names the status and what came back), until a frame is drawn. */
  showFailure(err) {
    console.warn(err.message);
    if (!this.failure) {
      this.failure = document.createElement("p");
      this.failure.className = "frame-failure";
      this.failure.setAttribute("role", "status");
      this.stage.append(this.failure);
    }
    this.failure.hidden = false;
    this.failure.textContent = `This step's figure could not be loaded: ${err.message}`;
  }

  /** Everything a step's frame decides, in one place; then "framedrawn" on the root, for whoever
   * measures it (benchmarks/keypaint.py). */
  apply(section, frame, before = null) {
    if (this.failure) this.failure.hidden = true;
    const waiting = this.prepared.get(section);
    // a prepared drawing's entrance motion, held since it was drawn, starts now (or ends: another frame)
    if (waiting) release(waiting.motion, { finish: waiting.frame !== frame });
    if (waiting?.frame !== frame) drawFrame(section, frame);
    this.prepared.delete(section);
    section.classList.remove("prepared");
    this.showWords(frame);
    this.shown = [section, frame];
    this.makeRoom();
    continuity?.travel(this.stage, before, section, frame); // what the last frame also showed flies here
    loadContinuity();
    this.derivations?.attach(section, frame);
    this.root.dataset.drawn = `${frame.slide}/${frame.step}`; // the step the stage holds (data-step may be ahead)
    this.root.dispatchEvent(new CustomEvent("framedrawn", { detail: { slide: frame.slide, step: frame.step } }));
    this.prepareNext();
  }

  /** On a slide's last step, draw the next slide's first step into its (hidden) section in idle time,
   * and lay it out there (.prepared: it is rendered though not visible); apply() then keeps it. */
  prepareNext() {
    if (this.preparing !== null) cancelIdle(this.preparing);
    const { slide, step } = this.player.state;
    const here = this.player.slides[slide - 1], next = this.player.slides[slide];
    const target = next && step >= here.steps ? this.section(next.id) : null;
    for (const s of this.stage.querySelectorAll(".slide.prepared")) {
      if (s === target) continue;
      s.classList.remove("prepared");
      release(this.prepared.get(s)?.motion ?? [], { finish: true }); // not shown: its drawing at rest
      this.prepared.delete(s);
    }
    this.preparing = null;
    if (!target) return;
    const still = () => { const now = this.player.state; return now.slide === slide && now.step === step; };
    // its frame may still be on its way (a step opened by its link fetches its own frame first)
    this.frames.load(next.id, 1).then(() => {
      if (!still() || this.preparing !== null) return;
      this.preparing = idle(() => {
        this.preparing = null;
        const frame = this.frames.peek(next.id, 1);
        if (!frame || !still() || this.prepared.get(target)?.frame === frame) return;
        target.classList.add("prepared");
        const before = new Set(target.getAnimations({ subtree: true }));
        drawFrame(target, frame);
        // the motion the views started for its arrival waits for the key (shown then, not now, unseen)
        const motion = hold(target.getAnimations({ subtree: true }).filter((a) => !before.has(a)));
        this.prepared.set(target, { frame, motion });
        target.querySelector(".canvas")?.getBoundingClientRect(); // its style and layout, now rather than at the key
      }, { timeout: 1000 });
    }, () => {});
  }

  showWords(words) { this.caption?.show(words); }

  /** (Re)start observing a slide head: the observer reports its size at the next rendering. */
  watchHead(head) {
    this.headWatch.unobserve(head);
    this.headWatch.observe(head);
    this.heads.add(head);
  }

  /** Keep the drawing clear of the caption bar (it grows with a long caption or the narration). */
  makeRoom() {
    if (!this.shown || !this.bar) return;
    const [section, frame] = this.shown;
    // Reading, the caption sits above the drawing, not on it (reading.css).
    if (this.layout.reading) { applyRoom(section, { oy: 0, s: 1 }); return; }
    if (!this.headBottom.has(section)) {
      const head = section.querySelector(".slide-head");
      if (head && this.headWatch) {
        this.watchHead(head); // measured once laid out (then makeRoom again), before this frame is painted
        return;
      }
      this.headBottom.set(section, head ? head.offsetTop + head.offsetHeight + 20 : 0);
    }
    this.barTop ??= this.bar.offsetTop;
    applyRoom(section, room(contentSpan(frame), this.headBottom.get(section), this.barTop));
  }
}
