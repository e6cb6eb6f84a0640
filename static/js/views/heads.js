// Many heads: a grid of head boxes (a few drawn, the count from the frame); their outputs summed,
// or concatenated and multiplied by one stacked W_O.
import { count } from "../lib/format.js";
import { arrowDefs, label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

function render(el, w) {
  const d = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  arrowDefs(root);
  // The cards share the box's width and its height above the room kept for Σ or the concatenation.
  const cols = 4, rows = 2, gx = 26, gy = 30, x0 = 20, y0 = 70, below = 190;
  const cw = Math.min(240, (W - x0 - 40 - gx * (cols - 1)) / cols);
  const ch = Math.min(200, (H - y0 - below - gy * (rows - 1)) / rows);
  const shown = cols * rows - 1;
  label(root, `${count(d.heads)} heads`, { class: "diagram-title", x: x0, y: 40 });
  const centres = [];
  const links = svg("g", { class: "head-links" }, root);  // drawn first, so the cards sit on top
  for (let i = 0; i < cols * rows; i++) {
    const x = x0 + (i % cols) * (cw + gx), y = y0 + Math.floor(i / cols) * (ch + gy);
    const g = svg("g", { class: "head-card" }, root);
    svg("rect", { x, y, width: cw, height: ch, rx: 14 }, g);
    const last = i === shown;
    label(g, last ? `head ${count(d.heads)}` : `head ${i + 1}`, { class: "head-name", x: x + cw / 2, y: y + 30, "text-anchor": "middle" });
    ["W_Q", "W_K", "W_V", "W_O"].forEach((m, j) => {
      const mx = x + (cw - 4 * 36 - 3 * 9) / 2 + j * 45;
      svg("rect", { class: `head-mat m${j}`, x: mx, y: y + 56, width: 36, height: ch - 100, rx: 5 }, g);
      label(g, m.slice(2), { class: "head-mat-label", x: mx + 18, y: y + ch - 18, "text-anchor": "middle" });
    });
    if (i === shown - 1) label(root, "…", { class: "diagram-small", x: x + cw + gx / 2, y: y + ch / 2, "text-anchor": "middle" });
    centres.push([x + cw / 2, y + ch]);
  }
  const by = y0 + rows * (ch + gy) + 40;
  if (d.stage === "many") {
    label(root, `each head: ${count(d.per_head_weights)} weights · all heads: ${count(d.all_weights)}`,
      { class: "diagram-small", x: x0, y: by + 20 });
    return;
  }
  if (d.stage === "concat") {
    const bw = 560;
    const g = svg("g", { class: "concat" }, root);
    svg("rect", { class: "concat-bar", x: x0, y: by, width: bw, height: 60, rx: 8 }, g);
    for (let k = 1; k < 8; k++) svg("line", { class: "concat-sep", x1: x0 + (bw / 8) * k, y1: by, x2: x0 + (bw / 8) * k, y2: by + 60 }, g);
    label(g, `concat: ${d.n} × ${count(d.heads * d.d_v)}`, { class: "diagram-small", x: x0 + bw / 2, y: by + 90, "text-anchor": "middle" });
    label(g, "×", { class: "diagram-big", x: x0 + bw + 40, y: by + 44, "text-anchor": "middle" });
    svg("rect", { class: "head-mat m3", x: x0 + bw + 80, y: by - 20, width: 150, height: 100, rx: 8 }, g);
    label(g, `W_O ${count(d.heads * d.d_v)} × ${count(d.d_model)}`, { class: "diagram-small", x: x0 + bw + 155, y: by + 110, "text-anchor": "middle" });
    return;
  }
  const sx = x0 + (cols * (cw + gx)) / 2, sy = by + 40;
  centres.forEach(([cx, cy]) => svg("path", { class: "diagram-arrow", fill: "none", "marker-end": "url(#arrowhead)",
    d: `M ${cx} ${cy} Q ${cx} ${sy - 20}, ${sx - 22} ${sy}` }, links));
  const g = svg("g", { class: "plus" }, root);
  svg("circle", { cx: sx, cy: sy, r: 30 }, g);
  label(g, "Σ", { x: sx, y: sy, "text-anchor": "middle", "dominant-baseline": "central" });
  label(root, `→ stream (${d.n} × ${count(d.d_model)})`, { class: "diagram-small", x: sx + 44, y: sy + 8 });
}

registerWidget("heads", render);
