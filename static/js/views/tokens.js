// A sentence as a row of token chips; the focus token is marked, and optional arcs link it to
// the others (their strength comes from the frame; no numbers are drawn here). With `drop` the
// chips run along the top instead: an arrow leads from the focus token down to the box's bottom,
// where its vector is drawn ("focus"), or every token gets an arrow to a "?" of its own ("every").
// With `map` (a title's picture) the sentence's whole map of weights stands at the right: each cell
// tinted by its weight on the weights scale, masked cells hatched, the focus row (the arcs) outlined.
import { TYPE } from "../lib/type.js";
import { arrowDefs, label, surface, svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { registerWidget } from "./widgets.js";

const DROP_CHIP_H = 80; // chips of equal size in every drop mode, so they keep their place between steps
const GAP = 14;
const TINT_CAP = 0.7;  // of the role's strongest tint: the chip's word stays readable on it

/** Chip widths for the tokens at `font`, scaled down together if the row is wider than `W`. */
function chipRow(tokens, font, W) {
  const widths = tokens.map((t) => Math.max(70, 26 + t.length * font * 0.6));
  const total = widths.reduce((a, b) => a + b, 0) + GAP * (tokens.length - 1);
  const scale = Math.min(1, W / total);
  let x = (W - total * scale) / 2;
  return widths.map((w) => {
    const chip = { x, w: w * scale };
    x += w * scale + GAP * scale;
    return chip;
  });
}

function chip(parent, text, x, y, w, h, font, focus, tint = null) {
  const g = svg("g", { class: `token-chip${focus ? " focus" : ""}${tint ? ` ${tint.cls}` : ""}` }, parent);
  if (tint?.f !== undefined) g.style.setProperty("--f", String(tint.f));
  svg("rect", { x, y, width: w, height: h, rx: 12 }, g);
  label(g, text, { x: x + w / 2, y: y + h / 2, "text-anchor": "middle", "dominant-baseline": "central",
    "font-size": font });
}

function arrow(parent, x, y1, y2) {
  svg("line", { class: "diagram-arrow", x1: x, y1, x2: x, y2, "marker-end": "url(#arrowhead)" }, parent);
}

/** Arcs from the focus chip to the others: the farthest rises most of the way up the box, nearer ones
 * less, so the arcs use the room above the chips instead of hugging them. */
function arcs(root, links, focus, centres, y) {
  const reach = Math.max(1, ...links.map((s, i) => (s > 0 && i !== focus ? Math.abs(i - focus) : 0)));
  links.forEach((strength, i) => {
    if (i === focus || strength <= 0) return;
    const x1 = centres[focus], x2 = centres[i];
    const peak = (y - 10) * (0.35 + 0.5 * (Math.abs(i - focus) / reach));
    svg("path", { class: "token-link", d: `M ${x1} ${y} Q ${(x1 + x2) / 2} ${y - 2 * peak} ${x2} ${y}`,
      "stroke-width": 3 + 11 * strength, opacity: 0.35 + 0.6 * strength }, root);
  });
}

const MAP_GAP = 170; // the chips' row, then the focus word naming the map's outlined row // between the chips' row and the map

/** The map of weights in a square of side `side` at (x0, y0): one cell per (asker, key). */
function weightMap(root, map, focus, x0, y0, side, word) {
  maskHatch(root.ownerDocument);
  const n = map.length, c = side / n;
  const top = Math.max(1e-12, ...map.flat().filter((v) => v !== null));
  const g = svg("g", { class: "cover-map kind-weights", "aria-hidden": "true" }, root);
  map.forEach((row, i) => row.forEach((v, j) => {
    const cell = svg("g", { class: `cell${v === null ? " masked" : ""}` }, g);
    if (v !== null) cell.style.setProperty("--f", String(Math.min(1, v / top)));
    svg("rect", { x: x0 + j * c, y: y0 + i * c, width: c, height: c }, cell);
  }));
  if (focus !== null && focus !== undefined) {
    svg("rect", { class: "cover-map-row", x: x0, y: y0 + focus * c, width: side, height: c }, g);
    label(root, word, { class: "cover-map-word", x: x0 - 14, y: y0 + (focus + 0.5) * c, "text-anchor": "end",
      "dominant-baseline": "central", "font-size": TYPE.label });
  }
}

function render(el, w) {
  const { tokens, focus, links, drop = "none", map = null } = w.data;
  const H = w.box.h;
  const side = map ? H - 8 : 0;
  const W = map ? w.box.w - side - MAP_GAP : w.box.w;
  const root = surface(el, w.box.w, H);
  root.replaceChildren();
  if (map) weightMap(root, map, focus, W + MAP_GAP, 4, side, tokens[focus] ?? "");
  const dropping = drop !== "none";
  const chipH = dropping ? DROP_CHIP_H : Math.min(80, H * 0.62);
  const font = Math.max(TYPE.label, Math.min(34, chipH * 0.45));
  const chips = chipRow(tokens, font, W);
  const y = dropping ? 2 : H - chipH - 4;
  const centres = chips.map((c) => c.x + c.w / 2);
  if (dropping) arrowDefs(root);
  // With arcs, each chip is tinted by its strength (the weight the focus token gives it); the tokens
  // after the focus, which it may not read, take the masked look. Each "?" is a query's.
  const linked = !dropping && links && focus !== null && focus !== undefined;
  const tintOf = (i) => (!linked ? null : i > focus && links[i] <= 0 ? { cls: "future" }
    : { cls: "weighted kind-weights", f: TINT_CAP * Math.min(1, links[i]) });
  if (linked) maskHatch();
  tokens.forEach((t, i) => chip(root, t, chips[i].x, y, chips[i].w, chipH, font, i === focus, tintOf(i)));
  if (drop === "focus" && focus !== null && focus !== undefined) {
    arrow(root, centres[focus], y + chipH + 6, H - 6);
  } else if (drop === "every") {
    const askH = Math.min(90, (H - chipH) / 3), askY = H - askH - 2;
    tokens.forEach((_, i) => {
      arrow(root, centres[i], y + chipH + 6, askY - 6);
      const aw = Math.min(chips[i].w, askH);
      chip(root, "?", centres[i] - aw / 2, askY, aw, askH, TYPE.title, i === focus, { cls: "asks kind-query", f: 0.35 });
    });
  }
  if (linked) arcs(root, links, focus, centres, y);
}

registerWidget("tokens", render);
