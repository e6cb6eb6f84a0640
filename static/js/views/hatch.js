// The masked look's hatch, url(#masked-hatch): one SVG pattern for the whole document, in a
// zero-size <svg> of its own at the end of <body> (a pattern inside a slide that is not shown,
// content-visibility: hidden, would not paint for the others). Its stripes and ground take
// --mask-line and --mask-bg from colours.css, so the theme (D) recolours it with no redraw.
import { svg } from "./dom.js";

export const HATCH_ID = "masked-hatch";
const SIZE = 10, LINE = 3.5;

/** Add the pattern once; every view that draws a masked cell calls this before it draws. */
export function maskHatch(doc = document) {
  if (doc.getElementById(HATCH_ID)) return;
  const host = svg("svg", { class: "hatch-defs", width: 0, height: 0, "aria-hidden": "true", focusable: "false" });
  Object.assign(host.style, { position: "absolute", width: "0", height: "0", overflow: "hidden" });
  const defs = svg("defs", {}, host);
  const p = svg("pattern", { id: HATCH_ID, patternUnits: "userSpaceOnUse", width: SIZE, height: SIZE,
    patternTransform: "rotate(45)" }, defs);
  svg("rect", { class: "hatch-bg", width: SIZE, height: SIZE }, p);
  svg("line", { class: "hatch-line", x1: LINE / 2, y1: 0, x2: LINE / 2, y2: SIZE, "stroke-width": LINE }, p);
  doc.body.appendChild(host);
}
