// "histogram": one or more series {label, edges, counts, kind, stat}, each on its own axis so raw
// and scaled scores can be compared by shape. Counts are computed by the frame builder.
import { number } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

registerWidget("histogram", (root, widget) => {
  const { series = [], caption = "" } = widget.data;
  root.replaceChildren();
  const W = widget.box.w, H = widget.box.h - 40, rowH = H / Math.max(series.length, 1);
  const plot = svg("svg", { class: "histogram", viewBox: `0 0 ${W} ${H}`, width: W, height: H,
    role: "img", "aria-label": series.map((s) => `${s.label}: ${s.stat}`).join("; ") });
  series.forEach((s, k) => {
    const top = k * rowH + 36, h = rowH - 90, left = 20, width = W - 40;
    const g = svg("g", { class: `kind-${s.kind}` }, plot);
    svg("text", { class: "hist-label", x: left, y: top - 8 }, g).textContent = `${s.label} · ${s.stat}`;
    const max = Math.max(...s.counts, 1), bw = width / s.counts.length;
    s.counts.forEach((c, i) => {
      const bh = (h * c) / max;
      svg("rect", { class: "hist-bar", x: left + i * bw + 1, y: top + h - bh, width: bw - 2, height: bh }, g);
    });
    svg("line", { class: "hist-axis", x1: left, x2: left + width, y1: top + h, y2: top + h }, g);
    const ticks = [0, Math.floor(s.counts.length / 2), s.counts.length];
    for (const t of ticks) {
      svg("text", { class: "hist-tick", x: left + t * bw, y: top + h + 26, "text-anchor": "middle" }, g)
        .textContent = number(s.edges[t], 0);
    }
  });
  root.appendChild(plot);
  const p = document.createElement("p");
  p.className = "hist-caption";
  p.textContent = caption;
  root.appendChild(p);
});
