// The map grows with the square of the context: each doubling makes the old map one quarter of
// the new one. Every figure comes from the frame (the cost model); the slider only picks a row.
import { bytes, count, number } from "../lib/format.js";
import { label, reducedMotion, surface, svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { registerWidget } from "./widgets.js";

function drawSquare(root, sizes, index, S, x0, y0) {
  root.replaceChildren();
  const cur = sizes[index];
  // At the deck's own context the square is the attention map of the slides around it: it travels
  // from and to there (views/continuity.js).
  const square = index === 0 ? svg("g", { "data-identity": "map" }, root) : root;
  svg("rect", { class: "growth-square", x: x0, y: y0, width: S, height: S }, square);
  if (index === 0) {
    maskHatch(); // the cells above the diagonal: the one masked look
    const n = cur.n, c = S / n;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        svg("rect", { class: `growth-cell${j > i ? " masked" : ""}`, x: x0 + j * c + 2, y: y0 + i * c + 2,
          width: c - 4, height: c - 4, rx: 3 }, square);
      }
    }
  } else {
    const prev = sizes[index - 1];
    const ratio = prev.n / cur.n;  // 1/2 for a doubling
    maskHatch(); // the causal triangle stays: every cell above the diagonal is masked, at any size
    svg("polygon", { class: "growth-cell masked", points: `${x0},${y0} ${x0 + S},${y0} ${x0 + S},${y0 + S}` }, root);
    svg("rect", { class: "growth-prev", x: x0, y: y0, width: S * ratio, height: S * ratio }, root);
    svg("polygon", { class: "growth-cell masked",
      points: `${x0},${y0} ${x0 + S * ratio},${y0} ${x0 + S * ratio},${y0 + S * ratio}` }, root);
    label(root, `${count(prev.n)} × ${count(prev.n)}`, { class: "growth-prev-label",
      x: x0 + (S * ratio) / 2, y: y0 + (S * ratio) / 2, "text-anchor": "middle", "dominant-baseline": "central" });
    svg("line", { class: "growth-grid", x1: x0 + S * ratio, y1: y0, x2: x0 + S * ratio, y2: y0 + S }, root);
    svg("line", { class: "growth-grid", x1: x0, y1: y0 + S * ratio, x2: x0 + S, y2: y0 + S * ratio }, root);
  }
  label(root, `${count(cur.n)} × ${count(cur.n)}`, { class: "growth-label", x: x0 + S / 2, y: y0 - 16,
    "text-anchor": "middle" });
}

/** The n² square grows: the new square opens out from the old one's corner, then the dashed
 * quarters and the new size appear (transform and opacity only; none with reduced motion). */
function grow(root, ratio, x0, y0) {
  const ease = "cubic-bezier(.2, .7, .2, 1)";
  const square = root.querySelector(".growth-square");
  square.style.transformOrigin = `${x0}px ${y0}px`;
  square.animate([{ transform: `scale(${ratio})` }, { transform: "scale(1)" }], { duration: 700, easing: ease });
  for (const el of root.querySelectorAll(".growth-grid, .growth-label")) {
    el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: 600, fill: "backwards" });
  }
}

const ROWS = [
  ["context n", (s) => `${count(s.n)} tokens`],
  ["cells in the map (one head)", (s) => count(s.cells)],
  ["memory for one head's map", (s) => bytes(s.bytes)],
  ["Q·Kᵀ FLOPs, one head", (s) => count(s.qk_flops)],  // only what the talk has shown so far
];

/** The figures of one size: a <dl> of ROWS and the ratio to the previous size. */
function figures(panel) {
  const dl = document.createElement("dl");
  const values = ROWS.map(([name]) => {
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
  return { values, ratio };
}

function button(text, name) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = text;
  b.setAttribute("aria-label", name);
  return b;
}

/** − slider +: `move(f)` sets the index to f(index), clamped to 0…last. Returns the slider. */
function controls(panel, last, move) {
  const box = document.createElement("div");
  box.className = "growth-controls";
  const minus = button("−", "Halve the context"), plus = button("+", "Double the context");
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.max = String(last);
  slider.step = "1";
  slider.setAttribute("aria-label", "Context length");
  const clamp = (i) => Math.max(0, Math.min(last, i));
  minus.addEventListener("click", () => move((i) => clamp(i - 1)));
  plus.addEventListener("click", () => move((i) => clamp(i + 1)));
  slider.addEventListener("input", () => move(() => Number(slider.value)));
  box.append(minus, slider, plus);
  panel.appendChild(box);
  return slider;
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
  const { values, ratio } = figures(panel);
  let slider = null;
  const update = () => {
    const s = sizes[index];
    ROWS.forEach(([, f], i) => { values[i].textContent = f(s); });
    values[1].title = s.cells_formula;
    values[2].title = s.bytes_formula;
    values[3].title = s.qk_formula;
    ratio.textContent = index > 0
      ? `${count(s.cells)} ÷ ${count(sizes[index - 1].cells)} = ${number(s.cells / sizes[index - 1].cells, 2)}× the cells`
      : "one score per pair of tokens";
    drawSquare(root, sizes, index, S, 40, 60);
    const before = Number(el.dataset.shown ?? index);
    if (index > before && index > 0 && !reducedMotion(el)) grow(root, sizes[index - 1].n / s.n, 40, 60);
    el.dataset.shown = String(index);
    if (slider) {
      slider.value = String(index);
      slider.setAttribute("aria-valuetext", `${count(s.n)} tokens`);
    }
  };
  if (interactive) slider = controls(panel, sizes.length - 1, (f) => { index = f(index); update(); });
  update();
}

registerWidget("growth", render);
