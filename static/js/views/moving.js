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

/** The animations under `root` that end (a looping one never does). */
export const finiteAnimations = (root) => root.getAnimations({ subtree: true })
  .filter((a) => a.effect?.getComputedTiming().endTime !== Infinity);
