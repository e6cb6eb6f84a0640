// Whether a view animates, and with what: views/motion.js (the choreography) is not needed for the
// first paint (a step opened by its URL is drawn in its end state, as with reduced motion), so it is
// loaded after it (loadMotion: startup.js waits for it before the page is ready and held keys act,
// so the first step change always moves). settle() is here, not there: it finishes whatever moves
// (CSS transitions too) whether or not the choreography is loaded.
import { reducedMotion } from "./dom.js";

let motion = null; // views/motion.js once loaded
let asked = null;

/** Load views/motion.js (once); resolves when views may use it. */
export function loadMotion() {
  asked ??= import("./motion.js").then((m) => { motion = m; });
  return asked;
}

/** views/motion.js when `el` may move (no reduced motion, not in a .still stage) and it is loaded, else null. */
export const motionFor = (el) => (motion && !reducedMotion(el) ? motion : null);

/**
 * Finish the motion still in flight under `root` (Web Animations and CSS transitions alike): a new
 * step's choreography starts from the previous step's end state, the one loading that step by its
 * URL draws, and nothing of an earlier step keeps animating beside it (SVG animates on the main
 * thread, so every motion left running costs each frame of the next step).
 */
export function settle(root) {
  for (const a of finiteAnimations(root)) a.finish();
}

// A hidden slide's entrance motion, drawn before its key (controllers/stage.js prepareNext): held at
// its start until the slide is shown, and no step's motion in flight meanwhile.
const held = new WeakSet();

/** Hold `animations` at their start (paused at 0, their `finished` still to come); play them with release. */
export function hold(animations) {
  for (const a of animations) { a.pause(); a.currentTime = 0; held.add(a); }
  return animations;
}

/** Play held animations from their start (or, `finish`, end them at once: their slide was not shown). */
export function release(animations, { finish = false } = {}) {
  for (const a of animations) { held.delete(a); if (finish) a.finish(); else a.play(); }
}

/** The animations under `root` that end (a looping one never does), but those held. */
export const finiteAnimations = (root) => root.getAnimations({ subtree: true })
  .filter((a) => !held.has(a) && a.effect?.getComputedTiming().endTime !== Infinity);
