// The stage's size in stage units (CSS px), for every module that needs it, and how large it is
// drawn in a window (stageLayout).
// One source: Python's attention_talk.frames.contract.STAGE_W / STAGE_H. The server writes it once
// into the page, <html data-stage-w data-stage-h> (templates/base.html) and the canvas viewBox
// (templates/slides/matrix.html); prepaint.js turns it into the CSS custom properties --stage-w,
// --stage-h and --stage-aspect before the first paint; this module reads it for the JS.
const root = document.documentElement;

export const STAGE_W = Number(root.dataset.stageW);
export const STAGE_H = Number(root.dataset.stageH);

if (!(STAGE_W > 0 && STAGE_H > 0)) console.error("stage size missing: <html data-stage-w data-stage-h>");

/** The smallest type on the stage, in stage units (the axis labels: talk.css .axis-label). */
export const SMALLEST_TEXT = 20;
/** No text on a phone is drawn smaller than this many CSS px (tests/browser/test_touch_phone.py):
 * the floor of the text the stage draws at SMALLEST_TEXT (axis labels, indices, a dense matrix's
 * numbers), which a phone held at reading distance still reads. */
export const READABLE_PX = 14;
/** The floor of every larger text on a phone (notes, labels, cell numbers, a widget's words): body
 * text. While reading, a part is scaled to fit the screen's width only as far as both floors hold;
 * below that it scrolls sideways instead (views/reading.js partScale, tests/browser/test_phone_parts.py). */
export const BODY_PX = 16;
/** The text sizes the reader can choose (keys + - 0 and the on-screen A− A+), as factors. */
export const TEXT_SIZES = [1, 1.25, 1.5, 1.75, 2];
/** Where the chosen text size is kept for the next visit (controllers/text-size.js). */
export const TEXT_SIZE_KEY = "attention-talk-text-size";

/** The text size chosen on an earlier visit (one of TEXT_SIZES), else 1. */
export function storedTextSize() {
  let stored = 1;
  try { stored = Number(localStorage.getItem(TEXT_SIZE_KEY)) || 1; } catch (e) { /* storage off */ }
  return TEXT_SIZES.includes(stored) ? stored : 1;
}

/**
 * How the stage is drawn in a `width` × `height` window at text size `textSize`:
 * `fit` is the scale that shows the whole 16:9 stage (what a projector gets); a portrait window in
 * which that scale would draw text under READABLE_PX (a phone held upright, a narrow tablet) reads
 * instead: the stage is drawn at a readable scale and shown one tensor or widget at a time, the
 * caption on top (controllers/reading.js; each part then gets its own scale, at least readable,
 * views/reading.js partScale). A text size above 1 enlarges either and reads too.
 */
export function stageLayout(width, height, textSize = 1) {
  const fit = Math.min(width / STAGE_W, height / STAGE_H);
  const small = fit * SMALLEST_TEXT < READABLE_PX;
  // (1% over: a widget drawn into its box at a scale a hair under 1 must not dip below READABLE_PX)
  const base = height > width && small ? (1.01 * READABLE_PX) / SMALLEST_TEXT : fit;
  const scale = base * textSize;
  return { fit, scale, textSize, reading: scale > fit * 1.001 };
}
