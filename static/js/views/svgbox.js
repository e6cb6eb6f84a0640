// A widget's drawing surface: one <svg> filling the widget's box, in the widget's own units.
import { svg } from "./format.js";

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
