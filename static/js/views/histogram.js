// "histogram": one or more series {label, edges, counts, kind, stat}, stacked top to bottom on ONE
// shared x axis (from the smallest to the largest edge of all series), so raw and scaled scores are
// compared by width, not by shape alone. `rows` keeps room for a series a later step adds. Counts are
// computed by the frame builder; each row scales its bars to its own tallest bin.
import { number } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

function xRange(series) {
  const all = series.flatMap((s) => s.edges);
  return { lo: Math.min(...all), hi: Math.max(...all) };
}

function drawRow(plot, s, top, h, x) {
  const g = svg("g", { class: `kind-${s.kind}` }, plot);
  svg("text", { class: "hist-label", x: x(x.lo), y: top - 10 }, g).textContent = `${s.label} · ${s.stat}`;
  const max = Math.max(...s.counts, 1);
  s.counts.forEach((c, i) => {
    const bh = (h * c) / max, x0 = x(s.edges[i]), x1 = x(s.edges[i + 1]);
    if (c > 0) svg("rect", { class: "hist-bar", x: x0 + 0.5, y: top + h - bh, width: Math.max(x1 - x0 - 1, 1), height: bh }, g);
  });
  svg("line", { class: "hist-axis", x1: x(x.lo), x2: x(x.hi), y1: top + h, y2: top + h }, g);
}

registerWidget("histogram", (root, widget) => {
  const { series = [], caption = "", rows = null, ticks = null } = widget.data;
  root.replaceChildren();
  const W = widget.box.w, H = widget.box.h - 50, n = Math.max(rows ?? 0, series.length, 1);
  const plot = svg("svg", { class: "histogram", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
    role: "img", "aria-label": series.map((s) => `${s.label}: ${s.stat}`).join("; ") });
  const { lo, hi } = xRange(series);
  const left = 30, width = W - 60, axisH = 40, rowH = (H - axisH) / n;
  const x = (v) => left + ((v - lo) / (hi - lo || 1)) * width;
  x.lo = lo; x.hi = hi;
  for (const t of ticks ?? [lo, (lo + hi) / 2, hi]) {
    svg("line", { class: "hist-grid", x1: x(t), x2: x(t), y1: 30, y2: H - axisH, stroke: "currentColor",
      "stroke-opacity": t === 0 ? 0.35 : 0.12, "stroke-width": 2 }, plot);
    svg("text", { class: "hist-tick", x: x(t), y: H - 8, "text-anchor": "middle" }, plot).textContent = number(t, 0);
  }
  series.forEach((s, k) => drawRow(plot, s, k * rowH + 44, rowH - 60, x));
  root.appendChild(plot);
  const p = document.createElement("p");
  p.className = "hist-caption";
  p.textContent = caption;
  root.appendChild(p);
});
