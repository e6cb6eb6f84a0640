// Room for the caption bar: when the bar (caption, and narration with T) reaches into the drawing,
// the drawing layers shift up and, if they must, shrink, so that nothing is hidden behind words.
// Pure geometry on the frame's boxes (stage units); the stage owner measures the bar.
const MARGIN = 12;

/** The stage-unit rectangle [top, bottom] that a frame draws into. */
export function contentSpan(frame) {
  const spans = [];
  for (const b of [...frame.tensors, ...frame.widgets, ...frame.notes].map((x) => x.box)) {
    spans.push([b.y, b.y + b.h]);
  }
  for (const s of frame.symbols || []) spans.push([s.y - s.size / 2, s.y + s.size / 2]);
  if (!spans.length) return null;
  return [Math.min(...spans.map((s) => s[0])), Math.max(...spans.map((s) => s[1]))];
}

/** Shift `dy` and scale `s` (about the stage's top centre) that fit [top, bottom] between
 * `minTop` (below the slide title) and `barTop` (the caption bar's top edge). */
export function room(span, minTop, barTop) {
  if (!span) return { dy: 0, s: 1 };
  const [top, bottom] = span;
  const limit = barTop - MARGIN;
  if (bottom <= limit) return { dy: 0, s: 1 };
  const s = Math.min(1, (limit - minTop) / Math.max(1, bottom - top));
  return { dy: limit - s * bottom, s };
}

/** Apply it to a slide's drawing layers (canvas, widgets, notes) as one transform each. */
export function applyRoom(section, { dy, s }) {
  const value = dy === 0 && s === 1 ? "" : `translateY(${dy.toFixed(1)}px) scale(${s.toFixed(4)})`;
  for (const layer of section.querySelectorAll(".canvas, .widget-layer, .notes-layer")) {
    if (layer.style.transform !== value) layer.style.transform = value;
  }
}
