// Room for the caption bar: when the bar (caption, and narration with T) reaches into the drawing,
// the drawing layers shrink towards the top, so that nothing is hidden behind words.
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

/** The scale `s` about the point (stage centre, `oy`) that fits [top, bottom] between `minTop`
 * (below the slide title) and `barTop` (the caption bar's top edge). A pure scale about a point
 * inside the stage keeps every layer inside the stage; the drawing gains the room between the
 * title and its own top as well. */
export function room(span, minTop, barTop) {
  if (!span) return { oy: 0, s: 1 };
  const [top, bottom] = span;
  const limit = barTop - MARGIN;
  if (bottom <= limit) return { oy: 0, s: 1 };
  const oy = Math.min(minTop, top);
  return { oy, s: Math.max(0.5, (limit - oy) / Math.max(1, bottom - oy)) };
}

/** Apply it to a slide's drawing layers (canvas, widgets, notes) as one transform each. */
export function applyRoom(section, { oy, s }) {
  const value = s === 1 ? "" : `scale(${s.toFixed(4)})`;
  for (const layer of section.querySelectorAll(".canvas, .widget-layer, .notes-layer")) {
    if (layer.style.transform !== value) layer.style.transform = value;
    if (s !== 1) layer.style.transformOrigin = `50% ${oy.toFixed(1)}px`;
  }
}
