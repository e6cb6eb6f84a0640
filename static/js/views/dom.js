// Small DOM helpers shared by the views: SVG elements, a widget's drawing surface, the arrowhead
// marker, and whether the user asked for less motion.
const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes, appended to `parent` when given. */
export function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

/** A widget's drawing surface: one <svg> filling the widget's box, in the widget's own units. */
export function surface(el, w, h) {
  let root = el.querySelector(":scope > svg");
  if (!root) {
    root = svg("svg", { class: "widget-svg" });
    el.appendChild(root);
  }
  root.setAttribute("viewBox", `0 0 ${w} ${h}`);
  root.setAttribute("width", w);
  root.setAttribute("height", h);
  return root;
}

/** Text element with its content set safely (textContent). */
export function label(parent, text, attrs = {}) {
  const t = svg("text", attrs, parent);
  t.textContent = text;
  return t;
}

/** The arrowhead marker (url(#arrowhead)) of the diagrams, added once to a surface. */
export function arrowDefs(root) {
  if (root.querySelector("#arrowhead")) return;
  const d = svg("defs", {}, root);
  const m = svg("marker", { id: "arrowhead", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, d);
  svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }, m);
}

/** No motion: the user asked for less, or `el` sits in a stage that must show final states at once
 * (.still: speaker-view previews, overview thumbnails, print pages). */
let lessMotion = null; // one media query list, asked on every step (matchMedia would parse it again)
export const reducedMotion = (el = null) =>
  (lessMotion ??= window.matchMedia("(prefers-reduced-motion: reduce)")).matches || Boolean(el?.closest?.(".still"));
