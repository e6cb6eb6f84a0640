// "bars": a compact column chart {labels, values, digits} in SVG (chapter 1's focus-row weights).
// Bar heights follow the values the frame carries; the value is printed above each bar.
// (Reconstructed after an accidental overwrite; see the chapter-2 report.)
import { formatNumber, svg } from "./format.js";
import { label, surface } from "./svgbox.js";
import { registerWidget } from "./widgets.js";

function render(el, w) {
  const { labels = [], values = [], digits = 2 } = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  const n = Math.max(values.length, 1), slot = W / n;
  const labelH = 24, valueH = 24, plotH = Math.max(10, H - labelH - valueH - 6);
  const max = Math.max(...values.map(Math.abs), 1e-12);
  values.forEach((v, i) => {
    const h = (plotH * Math.abs(v)) / max, x = i * slot + slot * 0.18, bw = slot * 0.64;
    const top = valueH + plotH - h;
    svg("rect", { class: "bar", x, y: top, width: bw, height: Math.max(h, 1), rx: 4 }, root);
    label(root, formatNumber(v, digits), { class: "bar-value", x: x + bw / 2, y: top - 6, "text-anchor": "middle" });
    label(root, labels[i] ?? "", { class: "bar-label", x: x + bw / 2, y: H - 4, "text-anchor": "middle" });
  });
}

registerWidget("bars", render);
