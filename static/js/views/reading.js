// Reading on a small screen (html.reading: a phone held upright, or a larger text size): the stage
// is drawn at a readable scale and the window shows one part of the step at a time, a tensor, a
// widget or a note, with the caption above it. Pure geometry on the frame's boxes (stage units),
// then CSS custom properties on the player (reading.css lays the page out from them).
export const MARGIN = 4; // stage units around a part, so its frame and labels are not cut
export const PAD = 10; // screen px between a part and the window's edge

function widgetLabel(w) {
  const d = w.data || {};
  for (const key of ["title", "label"]) if (typeof d[key] === "string" && d[key]) return d[key];
  return w.type.replace(/[-_]/g, " ");
}

/**
 * The parts of a frame in reading order (top to bottom, then left to right): {key, box, label}.
 * A step with nothing drawn (a title) has one part, the title block, `titleBox`.
 */
export function readingParts(frame, titleBox) {
  const parts = [
    ...frame.tensors.map((t) => ({ key: `t:${t.name}`, box: t.box, label: t.label, tensor: t })),
    ...frame.widgets.map((w) => ({ key: `w:${w.id}`, box: w.box, label: widgetLabel(w) })),
    ...frame.notes.map((n) => ({ key: `n:${n.id}`, box: n.box, label: n.text.split(/\s+/).slice(0, 6).join(" ") })),
  ];
  parts.sort((a, b) => (Math.abs(a.box.y - b.box.y) > 40 ? a.box.y - b.box.y : a.box.x - b.box.x));
  return parts.length ? parts : [{ key: "title", box: titleBox, label: "" }];
}

function highlighted(t) {
  const h = t.highlight;
  return Boolean(h && (h.rows.length || h.cols.length || h.cells.length));
}

/**
 * Which part the step is about: the first tensor or widget it brings in (not in `previous`, the
 * slide's step before), else the first highlighted tensor, else the first part.
 */
export function focusIndex(parts, previous) {
  const before = new Set(previous ? readingParts(previous, null).map((p) => p.key) : []);
  const entering = parts.findIndex((p) => !p.key.startsWith("n:") && p.key !== "title" && !before.has(p.key));
  if (previous && entering >= 0) return entering;
  const lit = parts.findIndex((p) => p.tensor && highlighted(p.tensor));
  return lit >= 0 ? lit : 0;
}

/**
 * The window onto one part at `scale`: the stage is cut down to the part and a margin around it
 * (its slide shifted inside it), `width` × `height` on screen, centred when narrower than `room`
 * (the screen's width); wider, the window scrolls sideways. Lengths in stage units but width and
 * height (screen px).
 */
export function partWindow(box, scale, room) {
  const m = MARGIN + PAD / scale; // above and below, the window's own margins keep it clear
  const w = box.w + 2 * m, h = box.h + 2 * MARGIN;
  return { width: w * scale, height: h * scale, left: Math.max(0, (room - w * scale) / 2) / scale,
    partX: m - box.x, partY: MARGIN - box.y, partW: w, partH: h };
}

/** Apply a window (partWindow) to the player's custom properties; null clears them. */
export function applyWindow(root, win) {
  const px = (v, d = 2) => (win ? `${v.toFixed(d)}px` : null);
  const props = { "--window-w": px(win?.width), "--window-h": px(win?.height), "--window-x": px(win?.left),
    "--part-x": px(win?.partX), "--part-y": px(win?.partY), "--part-w": px(win?.partW), "--part-h": px(win?.partH) };
  for (const [k, v] of Object.entries(props)) {
    if (v) root.style.setProperty(k, v); else root.style.removeProperty(k);
  }
}
