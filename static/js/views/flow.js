// The whole attention operation on one screen, every shape read from the computed arrays;
// optionally the box that makes it one head.
import { shape } from "../lib/format.js";
import { arrowDefs, label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

function node(parent, x, y, w, h, name, dims, kind) {
  // Each node is the tensor of that name on the slides around it (views/continuity.js flies it).
  const g = svg("g", { class: `flow-node kind-${kind}`, "data-identity": name }, parent);
  svg("rect", { x, y, width: w, height: h, rx: 10 }, g);
  label(g, name, { class: "flow-name", x: x + w / 2, y: y + h / 2 - 12, "text-anchor": "middle", "dominant-baseline": "central" });
  label(g, dims, { class: "flow-shape", x: x + w / 2, y: y + h / 2 + 16, "text-anchor": "middle", "dominant-baseline": "central" });
  return { x, y, w, h, cx: x + w / 2, cy: y + h / 2 };
}

function link(parent, a, b) {
  svg("path", { class: "diagram-arrow", fill: "none", "marker-end": "url(#arrowhead)",
    d: `M ${a.x + a.w} ${a.cy} C ${a.x + a.w + 30} ${a.cy}, ${b.x - 30} ${b.cy}, ${b.x} ${b.cy}` }, parent);
}

function render(el, w) {
  const d = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  arrowDefs(root);
  const nw = 150, nh = 78, mid = H / 2 + 20;
  const X = node(root, 10, mid - nh / 2, nw, nh, "X", shape(d.X), "input");
  const rowsY = [mid - 190, mid - nh / 2, mid + 112];
  const mats = ["W_Q", "W_K", "W_V"].map((m, i) => node(root, 215, rowsY[i], nw, nh, m, shape(d[m]), "weight"));
  const outs = [["Q", "query"], ["K", "key"], ["V", "value"]].map(([m, k], i) => node(root, 420, rowsY[i], 130, nh, m, shape(d[m]), k));
  mats.forEach((m, i) => { link(root, X, m); link(root, m, outs[i]); });
  const map = node(root, 610, rowsY[0] + 50, 150, nh, "Q·Kᵀ", shape(d.map), "scores");
  link(root, outs[0], map);
  link(root, outs[1], map);
  const weights = node(root, 800, rowsY[0] + 50, 190, nh, "A = softmax", shape(d.A), "weights");
  link(root, map, weights);
  const A = node(root, 1030, mid + 30, 140, nh, "Z = A·V", shape(d.Z), "output");
  link(root, weights, A);
  link(root, outs[2], A);
  const wo = node(root, 1200, mid + 30, 150, nh, "W_O", shape(d.W_O), "weight");
  link(root, A, wo);
  const O = node(root, 1380, mid + 30, 130, nh, "O", shape(d.O), "output");
  link(root, wo, O);
  // the stream runs above everything: input below it on the left, output added back on the right
  svg("line", { class: "stream", x1: 10, y1: 40, x2: W - 10, y2: 40 }, root);
  label(root, "residual stream", { class: "diagram-small", x: 20, y: 28 });
  svg("path", { class: "diagram-arrow", fill: "none", d: `M ${X.cx} 40 L ${X.cx} ${X.y}`, "marker-end": "url(#arrowhead)" }, root);
  svg("path", { class: "diagram-arrow", fill: "none", d: `M ${O.cx} ${O.y} L ${O.cx} 48`, "marker-end": "url(#arrowhead)" }, root);
  label(root, "+", { class: "diagram-big", x: O.cx + 16, y: 76 });
  if (d.head_box) {
    const g = svg("g", { class: "head-box" }, root);
    svg("rect", { x: 195, y: rowsY[0] - 40, width: 1170, height: rowsY[2] + nh + 30 - (rowsY[0] - 40), rx: 22 }, g);
    label(g, "one attention head", { class: "diagram-title", x: 215, y: rowsY[0] - 10 });
  }
}

registerWidget("flow", render);
