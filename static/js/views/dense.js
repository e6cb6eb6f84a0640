// The query as a dense layer: a few of the inputs on the left, a few of the outputs on the
// right, and the connections between them (one neuron's fan-in highlighted).
import { count, number } from "../lib/format.js";
import { label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

const TINT_CAP = 0.7;  // of the role's strongest tint: the neuron's index (muted) stays readable on it

function column(items, n, x, top, bottom) {
  // positions for the listed items, with a gap (⋮) before the last when indices jump
  const slots = items.length + 1, step = (bottom - top) / (slots - 1);
  return items.map((it, i) => ({ ...it, x, y: top + step * (i === items.length - 1 ? slots - 1 : i) }));
}

function render(el, w) {
  const { inputs, outputs, n_in, n_out, focus_output, all_links, token } = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  // A neuron's circle holds its index with room to spare: talk.css .dense-index is TYPE.dense (25
  // stage units), about 14 per digit, and "7,168" keeps 6 units clear of the circle on each side.
  // The columns run from under their titles to the box's foot.
  const radius = (ps) => Math.max(28, 10 + 6 * Math.max(...ps.map((p) => count(p.index).length)));
  const r = radius([...inputs, ...outputs]);
  const left = column(inputs, n_in, 200, 56 + r, H - r - 2);
  const right = column(outputs, n_out, W - 220, 80 + r, H - r - 24);
  const rIn = r, rOut = r;
  const lines = svg("g", { class: "dense-links" }, root);
  for (const o of right) {
    for (const i of left) {
      const on = focus_output !== null && o.index === outputs[focus_output].index;
      if (!all_links && !on) continue;
      svg("line", { class: `dense-link${on ? " on" : ""}`, x1: i.x + rIn, y1: i.y, x2: o.x - rOut, y2: o.y }, lines);
    }
  }
  // Each neuron is tinted by its own number, as a matrix cell is (its column's largest magnitude is
  // the top of the scale, negatives in --negative; capped so its index stays readable on it).
  const absMax = (ps) => Math.max(1e-12, ...ps.map((p) => Math.abs(p.value)));
  const scale = { in: absMax(inputs), out: absMax(outputs) };
  const node = (p, cls) => {
    const side = cls === "in" ? "in" : "out";
    const g = svg("g", { class: `dense-node ${cls} kind-${side === "in" ? "input" : "query"}${p.value < 0 ? " neg" : ""}` }, root);
    g.style.setProperty("--f", String(TINT_CAP * Math.min(1, Math.abs(p.value) / scale[side])));
    const r = cls === "in" ? rIn : rOut;
    svg("circle", { cx: p.x, cy: p.y, r }, g);
    label(g, number(p.value, 2), { x: cls === "in" ? p.x - r - 14 : p.x + r + 14, y: p.y,
      "text-anchor": cls === "in" ? "end" : "start", "dominant-baseline": "central", class: "dense-value" });
    label(g, count(p.index), { x: p.x, y: p.y, "text-anchor": "middle", "dominant-baseline": "central",
      class: "dense-index" });
  };
  left.forEach((p) => node(p, "in"));
  right.forEach((p) => node(p, `out${focus_output !== null && p.index === outputs[focus_output].index ? " on" : ""}`));
  const gapIn = (left[left.length - 2].y + left[left.length - 1].y) / 2;
  const gapOut = (right[right.length - 2].y + right[right.length - 1].y) / 2;
  label(root, "⋮", { class: "diagram-big", x: 200, y: gapIn + 10, "text-anchor": "middle" });
  label(root, "⋮", { class: "diagram-big", x: W - 220, y: gapOut + 10, "text-anchor": "middle" });
  label(root, `“${token}”: ${count(n_in)} inputs`, { class: "diagram-title kind-input", x: 200, y: 40, "text-anchor": "middle" });
  label(root, `question: ${count(n_out)} outputs`, { class: "diagram-title kind-query", x: W - 220, y: 40, "text-anchor": "middle" });
}

registerWidget("dense", render);
