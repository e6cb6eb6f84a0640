// The player: the one owner of state. Everything else listens to its events or calls actions.
// State is serializable: {slide, step, paused, overview}; slide and step are 1-based, as in the URL.
// Events: "stepchange" (a new position), "statechange" (paused or overview) and "close" (Esc: every
// overlay that is open closes itself; none needs to know about the others).

export class Player extends EventTarget {
  constructor(manifest) {
    super();
    this.manifest = manifest;
    this.slides = manifest.slides;
    this.state = { slide: 1, step: 1, paused: false, overview: false };
    this.actions = new Map();
    for (const name of ["next", "prev", "nextSlide", "prevSlide", "first", "last", "close"]) {
      this.register(name, () => this[name]());
    }
  }

  get slideCount() { return this.slides.length; }
  stepsOf(slide) { return this.slides[slide - 1].steps; }
  get currentSlide() { return this.slides[this.state.slide - 1]; }

  /** Index of the current step across the whole talk, 1-based. */
  get globalStep() {
    let n = 0;
    for (let i = 1; i < this.state.slide; i++) n += this.stepsOf(i);
    return n + this.state.step;
  }

  get totalSteps() { return this.slides.reduce((sum, s) => sum + s.steps, 0); }

  /** Move to (slide, step), clamped to the deck. Returns whether anything changed. */
  go(slide, step, { source = "player" } = {}) {
    const s = Math.min(Math.max(1, Math.trunc(slide) || 1), this.slideCount);
    const t = Math.min(Math.max(1, Math.trunc(step) || 1), this.stepsOf(s));
    if (s === this.state.slide && t === this.state.step) return false;
    const previous = { ...this.state };
    this.state = { ...this.state, slide: s, step: t };
    this.dispatchEvent(new CustomEvent("stepchange", { detail: { state: { ...this.state }, previous, source } }));
    return true;
  }

  /**
   * Change the state that is not a position: `paused` (false, "black" or "white": the audience
   * screen is blanked, as reveal.js's pause) or `overview` (true while the slide grid is open).
   * Dispatches "statechange" with the same detail as "stepchange". Returns whether anything changed.
   */
  set(patch, { source = "player" } = {}) {
    const previous = { ...this.state };
    const next = { ...this.state };
    for (const k of ["paused", "overview"]) if (k in patch) next[k] = patch[k];
    if (next.paused === previous.paused && next.overview === previous.overview) return false;
    this.state = next;
    this.dispatchEvent(new CustomEvent("statechange", { detail: { state: { ...next }, previous, source } }));
    return true;
  }

  /** Re-announce the current state (after start-up or a late listener). */
  refresh(source = "player") {
    const state = { ...this.state };
    this.dispatchEvent(new CustomEvent("stepchange", { detail: { state, previous: state, source } }));
  }

  /** The position after (slide, step) in the talk, or null at the very end. */
  following({ slide, step }) {
    if (step < this.stepsOf(slide)) return { slide, step: step + 1 };
    if (slide < this.slideCount) return { slide: slide + 1, step: 1 };
    return null;
  }

  next() {
    const to = this.following(this.state);
    return to ? this.go(to.slide, to.step) : false;
  }

  prev() {
    const { slide, step } = this.state;
    if (step > 1) return this.go(slide, step - 1);
    if (slide > 1) return this.go(slide - 1, this.stepsOf(slide - 1));
    return false;
  }

  nextSlide() { return this.go(this.state.slide + 1, 1); }
  prevSlide() { return this.state.step > 1 ? this.go(this.state.slide, 1) : this.go(this.state.slide - 1, 1); }
  first() { return this.go(1, 1); }
  last() { return this.go(this.slideCount, this.stepsOf(this.slideCount)); }

  /** Ask every open overlay (help, overview, jump prompt, derivation panel) to close. */
  close() { this.dispatchEvent(new Event("close")); }

  /** Actions are named so that one key table can drive them (see web/keys.py). */
  register(name, fn) { this.actions.set(name, fn); }
  perform(name, ...args) {
    const fn = this.actions.get(name);
    if (!fn) return false;
    fn(...args);
    return true;
  }
}
