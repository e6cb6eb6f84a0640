// The whole attention operation on one screen, every shape read from the computed arrays;
// optionally the box that makes it one head. Seven columns (X · W_Q W_K W_V · Q K V · Q·Kᵀ ·
// A over Z · W_O · O) in three rows, each node as wide as its name and shape need at the stage's
// type sizes, the room left over shared out between the columns.
import { shape } from "../lib/format.js";
import { TYPE } from "../lib/type.js";
import { arrowDefs, label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

const NODE_H = 90, NODE_PAD = 14; // the pad keeps a shape clear of its box's edges (at least 4 CSS px)
const NAME_EM = 0.66, MONO_EM = 0.62; // bold sans and monospace advance per character, in em

function nodeWidth(name, dims) {
  return Math.ceil(Math.max(name.length * TYPE.label * NAME_EM, dims.length * TYPE.dense * MONO_EM)) + 2 * NODE_PAD;
}

function node(parent, x, y, w, name, dims, kind) {
  const h = NODE_H;
  // Each node is the tensor of that name on the slides around it (views/continuity.js flies it).
  const g = svg("g", { class: `flow-node kind-${kind}`, "data-identity": name }, parent);
  svg("rect", { x, y, width: w, height: h, rx: 10 }, g);
  label(g, name, { class: "flow-name", x: x + w / 2, y: y + h / 2 - 15, "text-anchor": "middle", "dominant-baseline": "central" });
  label(g, dims, { class: "flow-shape", x: x + w / 2, y: y + h / 2 + 19, "text-anchor": "middle", "dominant-baseline": "central" });
  return { x, y, w, h, cx: x + w / 2, cy: y + h / 2 };
}

function link(parent, a, b) {
  svg("path", { class: "diagram-arrow", fill: "none", "marker-end": "url(#arrowhead)",
    d: `M ${a.x + a.w} ${a.cy} C ${a.x + a.w + 30} ${a.cy}, ${b.x - 30} ${b.cy}, ${b.x} ${b.cy}` }, parent);
}

function down(parent, a, b) {
  svg("path", { class: "diagram-arrow", fill: "none", "marker-end": "url(#arrowhead)",
    d: `M ${a.cx} ${a.y + a.h} L ${b.cx} ${b.y}` }, parent);
}

/** Each column's nodes as [name, shape, kind, row]; rows 0–2 from the top. */
function columns(d) {
  return [
    [["X", shape(d.X), "input", 1]],
    [["W_Q", shape(d.W_Q), "weight", 0], ["W_K", shape(d.W_K), "weight", 1], ["W_V", shape(d.W_V), "weight", 2]],
    [["Q", shape(d.Q), "query", 0], ["K", shape(d.K), "key", 1], ["V", shape(d.V), "value", 2]],
    [["Q·Kᵀ", shape(d.map), "scores", 0.5]],
    [["A = softmax", shape(d.A), "weights", 0.5], ["Z = A·V", shape(d.Z), "output", 2]],
    [["W_O", shape(d.W_O), "weight", 2]],
    [["O", shape(d.O), "output", 2]],
  ];
}

function render(el, w) {
  const d = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  arrowDefs(root);
  const rowY = [140, 140 + (H - 140 - NODE_H - 70) / 2, H - NODE_H - 70];
  const cols = columns(d);
  const widths = cols.map((c) => Math.max(...c.map(([name, dims]) => nodeWidth(name, dims))));
  const gap = (W - 20 - widths.reduce((a, b) => a + b, 0)) / (cols.length - 1);
  const at = {};
  let x = 10;
  cols.forEach((c, i) => {
    for (const [name, dims, kind, row] of c) {
      const y = row === 0.5 ? (rowY[0] + rowY[1]) / 2 : rowY[row];
      at[name] = node(root, x, y, widths[i], name, dims, kind);
    }
    x += widths[i] + gap;
  });
  ["W_Q", "W_K", "W_V"].forEach((m, i) => { link(root, at.X, at[m]); link(root, at[m], at[["Q", "K", "V"][i]]); });
  link(root, at.Q, at["Q·Kᵀ"]);
  link(root, at.K, at["Q·Kᵀ"]);
  link(root, at["Q·Kᵀ"], at["A = softmax"]);
  // between the map and softmax: the scaling and the mask, the whole operation's other two steps
  const map = at["Q·Kᵀ"], soft = at["A = softmax"];
  label(root, "÷ √d_k, + M", { class: "diagram-small flow-between", x: (map.x + map.w + soft.x) / 2, y: map.y - 12,
    "text-anchor": "middle" });  // above the arrow: the gap between the nodes is narrower than the words
  down(root, at["A = softmax"], at["Z = A·V"]);
  link(root, at.V, at["Z = A·V"]);
  link(root, at["Z = A·V"], at.W_O);
  link(root, at.W_O, at.O);
  // the stream runs above everything: input below it on the left, output added back on the right
  svg("line", { class: "stream", x1: 10, y1: 40, x2: W - 10, y2: 40 }, root);
  label(root, "residual stream", { class: "diagram-small", x: 20, y: 26 });
  svg("path", { class: "diagram-arrow", fill: "none", d: `M ${at.X.cx} 40 L ${at.X.cx} ${at.X.y}`, "marker-end": "url(#arrowhead)" }, root);
  svg("path", { class: "diagram-arrow", fill: "none", d: `M ${at.O.cx} ${at.O.y} L ${at.O.cx} 48`, "marker-end": "url(#arrowhead)" }, root);
  label(root, "+", { class: "diagram-big", x: at.O.cx + 16, y: 80 });
  if (d.head_box) {
    const left = at.W_Q.x - gap / 2, right = at.W_O.x + at.W_O.w + gap / 2;
    const g = svg("g", { class: "head-box" }, root);
    svg("rect", { x: left, y: rowY[0] - 50, width: right - left, height: rowY[2] + NODE_H + 30 - (rowY[0] - 50), rx: 22 }, g);
    label(g, "one attention head", { class: "diagram-title", x: left + 20, y: rowY[0] - 14 });
  }
}

registerWidget("flow", render);
