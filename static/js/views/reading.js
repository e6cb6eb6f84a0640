// Reading on a small screen (html.reading: a phone held upright, or a larger text size): the window
// shows one part of the step at a time, a tensor, a widget or a note, with the caption above it.
// Each part is drawn at its own scale: scaled to fit the screen's width while its text stays
// readable (lib/stage-size.js READABLE_PX, BODY_PX), else at the smallest readable scale in a window
// that scrolls sideways and shows its cut edges (reading.css .reading-edges). Geometry on the
// frame's boxes and the drawn part (stage units), then CSS custom properties on the player
// (reading.css lays the page out from them).
import { BODY_PX, READABLE_PX, SMALLEST_TEXT } from "../lib/stage-size.js";

export const MARGIN = 4; // stage units around a part, so its frame and labels are not cut
export const PAD = 10; // screen px between a part and the window's edge
export const EDGE_PAD = 4; // the same, for a part that fits the screen only without PAD

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

/** The part's element in the active slide: a tensor's group, a widget's or a note's box, the title. */
export function partElement(section, key) {
  if (!section) return null;
  const id = CSS.escape(key.slice(2));
  const sel = { t: `.canvas > .tensor:not(.leaving)[data-tensor="${id}"]`, w: `.widget-layer > [data-widget="${id}"]`,
    n: `.note[data-note="${id}"]` }[key.slice(0, 1)];
  return section.querySelector(key === "title" ? ".title-block" : sel);
}

/** Widget kinds that are words in boxes (cards): while read, they wrap to the screen's width in one
 * column (reading.css), as a note does, instead of scrolling sideways. */
const WORD_WIDGETS = new Set(["cards"]);

/** Whether a part is words that wrap to the screen's width: a note, the title, a card widget. */
export function wraps(key, el) {
  return key === "title" || key.startsWith("n:") || (key.startsWith("w:") && WORD_WIDGETS.has(el?.dataset.type));
}

/**
 * The least scale at which every text of a part is readable: a text the stage draws at its smallest
 * size (SMALLEST_TEXT: axis labels, indices, a dense matrix's numbers) at READABLE_PX, any larger
 * text (notes, labels, cell numbers) at BODY_PX; `sizes` in stage units. No text: 0 (any scale).
 */
export function floorScale(sizes) {
  const need = (size) => (size <= SMALLEST_TEXT + 0.5 ? READABLE_PX : BODY_PX) / size;
  return sizes.filter((s) => s > 0).reduce((most, s) => Math.max(most, need(s)), 0);
}

/**
 * The scale a part of `width` stage units is drawn at in `room` screen px: `preferred` (the reading
 * scale, or the floor if that is larger) when it fits; else as large as fits, down to `floor`
 * (text still readable), first within the window's own margins (PAD), then nearer the screen's
 * edges (EDGE_PAD);
 * a part that does not fit even there stays at `floor` and scrolls. {scale, pad, scrolls}.
 */
export function partScale(width, room, floor, preferred) {
  const want = Math.max(preferred, floor);
  const fits = (pad) => (room - 2 * pad) / (width + 2 * MARGIN);
  if (fits(PAD) >= want) return { scale: want, pad: PAD, scrolls: false };
  if (fits(PAD) >= floor) return { scale: fits(PAD), pad: PAD, scrolls: false };
  if (fits(EDGE_PAD) >= floor) return { scale: Math.min(want, fits(EDGE_PAD)), pad: EDGE_PAD, scrolls: false };
  return { scale: floor, pad: PAD, scrolls: true };
}

/** Screen px per CSS px at `el`: zoom and any transform on the way (a move half done too). An
 * element that cannot say (MathML, an empty box) is drawn at its parent's. */
function unitsOnScreen(el) {
  if (el instanceof SVGGraphicsElement) {
    const m = el.getScreenCTM();
    if (m) return Math.hypot(m.a, m.b);
  } else if (el instanceof HTMLElement && el.offsetWidth) {
    return el.getBoundingClientRect().width / el.offsetWidth;
  }
  return el.parentElement ? unitsOnScreen(el.parentElement) : 1;
}

/** The sizes of a part's texts in stage units (a view that scales its drawing counts). */
export function textSizes(el) {
  const k = unitsOnScreen(el), sizes = [];
  const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.parentElement;
    if (!n.nodeValue.trim() || !text || text.closest(".sr-only, [hidden], defs")) continue;
    if (!text.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true })) continue;
    sizes.push((parseFloat(getComputedStyle(text).fontSize) * unitsOnScreen(text)) / k);
  }
  return sizes;
}

/** A computed colour that paints nothing: "transparent" or any colour of alpha 0. */
const clear = (v) => v === "transparent" || /,\s*0\)$/.test(v);

/** Whether `e` itself draws something (besides its words): an SVG shape with paint, an HTML box
 * with a background or a border, or a control (a wrapper that only holds others does not). */
function drawsItself(e, style) {
  if (e instanceof SVGElement) {
    if (e instanceof SVGSVGElement || e instanceof SVGGElement || e instanceof SVGTextContentElement
      || e.closest("defs, marker, clipPath, mask")) return false;
    const paint = (v) => v !== "none" && !clear(v);
    return (paint(style.fill) && parseFloat(style.fillOpacity) > 0) || paint(style.stroke);
  }
  if (e.matches("button, input, select, textarea, img, canvas, video")) return true;
  return !clear(style.backgroundColor) || style.backgroundImage !== "none"
    || parseFloat(style.borderTopWidth) + parseFloat(style.borderLeftWidth) > 0;
}

/** The boxes on screen of `e`'s own words (a glyph can reach past its element's box). */
function wordBoxes(e) {
  const out = [];
  for (const n of e.childNodes) {
    if (n.nodeType !== Node.TEXT_NODE || !n.nodeValue.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    out.push(range.getBoundingClientRect());
  }
  return out;
}

/**
 * Where a part's drawing is, in stage units: a widget's box is often wider than what it draws (or
 * its drawing reaches out of it), so its window is cut to what is drawn. `box` is where the frame
 * puts the part; its element's place on screen is measured from there, so a part still moving
 * into its place measures where it ends.
 */
export function drawnBox(el, box) {
  if (el instanceof SVGGraphicsElement) {
    const b = el.getBBox(); // the group's own units: where its frame puts it, plus this
    return b.width > 0 ? { x: box.x + b.x, y: box.y + b.y, w: b.width, h: b.height } : box;
  }
  const origin = el.getBoundingClientRect(), k = unitsOnScreen(el);
  let l = Infinity, t = Infinity, r = -Infinity, b = -Infinity;
  const visit = (parent) => {
    for (const e of parent.children) {
      const style = getComputedStyle(e);
      // not drawn: hidden, fully transparent (a part of the drawing a later step brings in), unseen
      if (style.display === "none" || parseFloat(style.opacity) < 0.05 || e.matches(".sr-only, [hidden]")) continue;
      visit(e);
      if (style.visibility === "hidden") continue;
      for (const q of [...(drawsItself(e, style) ? [e.getBoundingClientRect()] : []), ...wordBoxes(e)]) {
        if (q.width * q.height < 1) continue;
        l = Math.min(l, q.left); t = Math.min(t, q.top); r = Math.max(r, q.right); b = Math.max(b, q.bottom);
      }
    }
  };
  visit(el);
  if (!(r > l)) return box;
  return { x: box.x + (l - origin.left) / k, y: box.y + (t - origin.top) / k, w: (r - l) / k, h: (b - t) / k };
}

/**
 * The window onto one part at `scale`: the stage is cut down to the part and a margin around it
 * (its slide shifted inside it), `width` × `height` on screen, centred when narrower than `room`
 * (the screen's width); wider, the window scrolls sideways. `pad`: screen px of margin at its
 * sides. Lengths in stage units but width and height (screen px).
 */
export function partWindow(box, scale, room, pad = PAD) {
  const m = MARGIN + pad / scale; // above and below, the window's own margins keep it clear
  const w = box.w + 2 * m, h = box.h + 2 * MARGIN;
  return { scale, width: w * scale, height: h * scale, left: Math.max(0, (room - w * scale) / 2) / scale,
    partX: m - box.x, partY: MARGIN - box.y, partW: w, partH: h };
}

/** Apply a window (partWindow) to the player's custom properties; null clears them. */
export function applyWindow(root, win) {
  const px = (v, d = 2) => (win ? `${v.toFixed(d)}px` : null);
  const props = { "--window-w": px(win?.width), "--window-h": px(win?.height), "--window-x": px(win?.left),
    "--part-x": px(win?.partX), "--part-y": px(win?.partY), "--part-w": px(win?.partW), "--part-h": px(win?.partH),
    "--part-scale": win ? win.scale.toFixed(4) : null };
  for (const [k, v] of Object.entries(props)) {
    if (v) root.style.setProperty(k, v); else root.style.removeProperty(k);
  }
}

/** Which sides of a sideways-scrolling window hide more of its part: "left", "right", both, "". */
export function hiddenSides(view) {
  const max = view.scrollWidth - view.clientWidth;
  if (max <= 1) return "";
  return [view.scrollLeft > 1 ? "left" : "", view.scrollLeft < max - 1 ? "right" : ""].filter(Boolean).join(" ");
}
