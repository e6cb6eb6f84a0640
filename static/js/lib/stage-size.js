// The stage's size in stage units (CSS px), for every module that needs it.
// One source: Python's attention_talk.frames.model.STAGE_W / STAGE_H. The server writes it once
// into the page, <html data-stage-w data-stage-h> (templates/base.html) and the canvas viewBox
// (templates/slides/matrix.html); prepaint.js turns it into the CSS custom properties --stage-w,
// --stage-h and --stage-aspect before the first paint; this module reads it for the JS.
const root = document.documentElement;

export const STAGE_W = Number(root.dataset.stageW);
export const STAGE_H = Number(root.dataset.stageH);

if (!(STAGE_W > 0 && STAGE_H > 0)) console.error("stage size missing: <html data-stage-w data-stage-h>");
