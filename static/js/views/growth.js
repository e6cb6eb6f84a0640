// The map grows with the square of the context: each doubling makes the old map one quarter of
// the new one. Every figure comes from the frame (the cost model); the slider only picks a row.
import { formatCount, svg } from "./format.js";
import { label, surface } from "./svgbox.js";
import { registerWidget } from "./widgets.js";

export function formatBytes(bytes) {
  const units = ["bytes", "kB", "MB", "GB", "TB"];
  let v = bytes, u = 0;
  while (v >= 1000 && u < units.length - 1) { v /= 1000; u++; }
  return u === 0 ? `${formatCount(v)} bytes` : `${v.toPrecision(3)} ${units[u]}`;
}

function drawSquare(root, sizes, index, S, x0, y0) {
  root.replaceChildren();
  const cur = sizes[index];
  svg("rect", { class: "growth-square", x: x0, y: y0, width: S, height: S }, root);
  if (index === 0) {
    const n = cur.n, c = S / n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        svg("rect", { class: `growth-cell${j > i ? " masked" : ""}`, x: x0 + j * c + 2, y: y0 + i * c + 2,
          width: c - 4, height: c - 4, rx: 3 }, root);
      }
    }
  } else {
    const prev = sizes[index - 1];
    const ratio = prev.n / cur.n;  // 1/2 for a doubling
    svg("rect", { class: "growth-prev", x: x0, y: y0, width: S * ratio, height: S * ratio }, root);
    label(root, `${formatCount(prev.n)} × ${formatCount(prev.n)}`, { class: "growth-prev-label",
      x: x0 + (S * ratio) / 2, y: y0 + (S * ratio) / 2, "text-anchor": "middle", "dominant-baseline": "central" });
    svg("line", { class: "growth-grid", x1: x0 + S * ratio, y1: y0, x2: x0 + S * ratio, y2: y0 + S }, root);
    svg("line", { class: "growth-grid", x1: x0, y1: y0 + S * ratio, x2: x0 + S, y2: y0 + S * ratio }, root);
  }
  label(root, `${formatCount(cur.n)} × ${formatCount(cur.n)}`, { class: "growth-label", x: x0 + S / 2, y: y0 - 16,
    "text-anchor": "middle" });
}

function render(el, w) {
  const { sizes, interactive } = w.data;
  const W = w.box.w, H = w.box.h;
  let index = w.data.index;
  el.replaceChildren();
  const S = Math.min(H - 80, 520);
  const root = surface(el, Math.min(W, S + 80), H);
  root.classList.add("growth-svg");
  const panel = document.createElement("div");
  panel.className = "growth-panel";
  el.appendChild(panel);
  const rows = [
    ["context n", (s) => `${formatCount(s.n)} tokens`],
    ["cells in the map (one head)", (s) => formatCount(s.cells)],
    ["memory for one head's map", (s) => formatBytes(s.bytes)],
    ["QKᵀ + weights×V FLOPs per token", (s) => formatCount(s.context_flops)],
    ["projection FLOPs per token", (s) => formatCount(s.projection_flops)],
  ];
  const dl = document.createElement("dl");
  const values = rows.map(([name]) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dl.append(dt, dd);
    return dd;
  });
  panel.appendChild(dl);
  const ratio = document.createElement("p");
  ratio.className = "growth-ratio";
  panel.appendChild(ratio);
  let slider = null;
  const update = () => {
    const s = sizes[index];
    rows.forEach(([, f], i) => { values[i].textContent = f(s); });
    values[1].title = s.cells_formula;
    values[2].title = s.bytes_formula;
    values[3].title = s.context_formula;
    ratio.textContent = index > 0
      ? `${formatCount(s.cells)} ÷ ${formatCount(sizes[index - 1].cells)} = ${(s.cells / sizes[index - 1].cells).toFixed(2)}× the cells`
      : "one score per pair of tokens";
    drawSquare(root, sizes, index, S, 40, 60);
    if (slider) {
      slider.value = String(index);
      slider.setAttribute("aria-valuetext", `${formatCount(s.n)} tokens`);
    }
  };
  if (interactive) {
    const controls = document.createElement("div");
    controls.className = "growth-controls";
    const minus = document.createElement("button");
    minus.type = "button";
    minus.textContent = "−";
    minus.setAttribute("aria-label", "Halve the context");
    const plus = document.createElement("button");
    plus.type = "button";
    plus.textContent = "+";
    plus.setAttribute("aria-label", "Double the context");
    slider = document.createElement("input");
    slider.type = "range";
    slider.min = "0";
    slider.max = String(sizes.length - 1);
    slider.step = "1";
    slider.setAttribute("aria-label", "Context length");
    minus.addEventListener("click", () => { index = Math.max(0, index - 1); update(); });
    plus.addEventListener("click", () => { index = Math.min(sizes.length - 1, index + 1); update(); });
    slider.addEventListener("input", () => { index = Number(slider.value); update(); });
    controls.append(minus, slider, plus);
    panel.appendChild(controls);
  }
  update();
}

registerWidget("growth", render);
