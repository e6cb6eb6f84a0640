// Draws a frame's tensors as SVG matrices. Tensors are keyed by name: one that stays from a step
// to the next moves and recolours (CSS transitions); a new one fades in; a gone one fades out.
import { number, shape } from "../lib/format.js";
import { reducedMotion, svg } from "./dom.js";

const TITLE_H = 34, COL_H = 28, GAP = 0.6, MAX_CW = 112, MAX_CH = 58;

function positions(indices, unit) {
  // x (or y) offset of each displayed index; a jump in the index leaves a gap drawn with "…".
  const out = [], gaps = [];
  let at = 0;
  indices.forEach((idx, i) => {
    if (i > 0 && idx !== indices[i - 1] + 1) { gaps.push(at + (GAP * unit) / 2); at += GAP * unit; }
    out.push(at);
    at += unit;
  });
  return { out, gaps, extent: at };
}

function countGaps(indices) {
  let g = 0;
  for (let i = 1; i < indices.length; i++) if (indices[i] !== indices[i - 1] + 1) g++;
  return g;
}

function layout(t) {
  const longestRow = Math.max(...t.rows.map((r) => r.length), 1);
  const rowW = t.gutter ?? Math.min(150, 14 + longestRow * 11.5);
  const gw = t.box.w - rowW, gh = t.box.h - TITLE_H - COL_H;
  const cw = Math.min(MAX_CW, gw / (t.cols.length + GAP * countGaps(t.col_index)));
  const ch = Math.min(MAX_CH, gh / (t.rows.length + GAP * countGaps(t.row_index)));
  const longestValue = Math.max(...t.values.flat().map((v) => number(v, t.digits).length), 1);
  const font = Math.max(9, Math.min(ch * 0.5, (cw - 8) / (longestValue * 0.7), 24));
  return { rowW, cw, ch, font, cols: positions(t.col_index, cw), rows: positions(t.row_index, ch) };
}

function valueRange(t) {
  const vals = t.values.flat().filter((v) => v !== null);
  return { min: Math.min(...vals), max: Math.max(...vals), absMax: Math.max(...vals.map(Math.abs), 1e-12) };
}

function alphaOf(t, v, range) {
  if (v === null) return 0.22;
  if (t.heat) return 0.1 + 0.62 * ((v - range.min) / (range.max - range.min || 1));
  return 0.06 + 0.3 * (Math.abs(v) / range.absMax);
}

function highlightSets(t) {
  return {
    rows: new Set(t.highlight.rows), cols: new Set(t.highlight.cols),
    cells: new Set(t.highlight.cells.map(([r, c]) => `${r},${c}`)),
  };
}

/** Build (or rebuild) the inside of a tensor group. */
function buildTensor(g, t, L) {
  g.replaceChildren();
  const title = svg("text", { class: `tensor-title kind-${t.kind}`, x: 0, y: 24 }, g);
  title.textContent = t.label;
  svg("tspan", { class: "tensor-shape", dx: 14 }, title).textContent = shape(t.shape);
  const tokenCols = t.cols.some((c) => /[^\d,]/.test(c));
  const tokenRows = t.rows.some((r) => /[^\d,]/.test(r));
  const gx = L.rowW, gy = TITLE_H + COL_H;
  t.cols.forEach((label, j) => {
    const el = svg("text", { class: `axis-label col${tokenCols ? " token" : ""}`, "text-anchor": "middle",
      x: gx + L.cols.out[j] + L.cw / 2, y: TITLE_H + COL_H - 8, "data-c": t.col_index[j] }, g);
    el.textContent = label;
  });
  t.rows.forEach((label, i) => {
    const el = svg("text", { class: `axis-label row${tokenRows ? " token" : ""}`, "text-anchor": "end",
      "dominant-baseline": "central", x: gx - 10, y: gy + L.rows.out[i] + L.ch / 2,
      "data-r": t.row_index[i] }, g);
    el.textContent = label;
  });
  for (const x of L.cols.gaps) {
    svg("text", { class: "gap", x: gx + x, y: gy + L.rows.extent / 2 }, g).textContent = "…";
  }
  for (const y of L.rows.gaps) {
    svg("text", { class: "gap", x: gx + L.cols.extent / 2, y: gy + y }, g).textContent = "⋮";
  }
  const cells = svg("g", { class: "cells" }, g);
  t.values.forEach((row, i) => row.forEach((_, j) => {
    const cell = svg("g", { class: "cell", "data-r": t.row_index[i], "data-c": t.col_index[j],
      transform: `translate(${gx + L.cols.out[j]},${gy + L.rows.out[i]})` }, cells);
    svg("rect", { width: L.cw - 2, height: L.ch - 2, x: 1, y: 1, rx: 4 }, cell);
    svg("text", { x: L.cw / 2, y: L.ch / 2, "font-size": L.font.toFixed(1) }, cell);
  }));
  svg("rect", { class: "row-hl", x: gx - 4, width: L.cols.extent + 8, height: L.ch + 4, rx: 8 }, g);
  g.dataset.signature = signature(t);
}

function signature(t) {
  return [t.rows.join("|"), t.cols.join("|"), t.box.w, t.box.h, t.digits].join("#");
}

/** Fill values, colours and highlights into an already-built group. */
function fillTensor(g, t, L, animate) {
  const range = valueRange(t);
  const hl = highlightSets(t);
  const anyRow = hl.rows.size > 0;
  const cellEls = g.querySelectorAll(".cell");
  let k = 0;
  t.values.forEach((row, i) => row.forEach((v, j) => {
    const cell = cellEls[k++];
    const r = t.row_index[i], c = t.col_index[j];
    const isHl = hl.cells.has(`${r},${c}`) || hl.cols.has(c);
    const masked = v === null;
    const wasMasked = cell.classList.contains("masked");
    cell.classList.toggle("masked", masked);
    cell.classList.toggle("hl", isHl);
    cell.classList.toggle("dim", anyRow && !hl.rows.has(r));
    cell.classList.toggle("hidden-value", t.reveal === "none" || (t.reveal === "highlight" && !isHl));
    cell.style.setProperty("--a", alphaOf(t, v, range).toFixed(3));
    // The mask sweeps in along the diagonal; everything else changes together.
    cell.style.transitionDelay = animate && masked && !wasMasked ? `${(c - r) * 45}ms` : "0ms";
    cell.querySelector("text").textContent = number(v, t.digits);
  }));
  g.querySelectorAll(".axis-label.row").forEach((el) =>
    el.classList.toggle("hl", hl.rows.has(Number(el.dataset.r))));
  g.querySelectorAll(".axis-label.col").forEach((el) =>
    el.classList.toggle("hl", hl.cols.has(Number(el.dataset.c))));
  const band = g.querySelector(".row-hl");
  // One band around the highlighted rows (they are contiguous in every frame we draw).
  const shown = t.row_index.map((r, i) => (hl.rows.has(r) ? i : -1)).filter((i) => i >= 0);
  band.classList.toggle("on", shown.length > 0);
  if (shown.length) {
    const top = L.rows.out[shown[0]], bottom = L.rows.out[shown[shown.length - 1]] + L.ch;
    band.setAttribute("y", TITLE_H + COL_H + top - 2);
    band.setAttribute("height", bottom - top + 4);
  }
}

export function renderTensors(canvas, tensors) {
  const animate = !reducedMotion();
  const existing = new Map([...canvas.querySelectorAll(":scope > .tensor")].map((g) => [g.dataset.tensor, g]));
  for (const t of tensors) {
    let g = existing.get(t.name);
    existing.delete(t.name);
    const L = layout(t);
    const fresh = !g;
    if (fresh) {
      g = svg("g", { class: `tensor kind-${t.kind}`, "data-tensor": t.name }, canvas);
      g.style.transition = "opacity var(--t) var(--ease)"; // appear in place, do not fly in
    }
    g.setAttribute("class", `tensor kind-${t.kind}${fresh && animate ? " entering" : ""}`);
    g.style.transform = `translate(${t.box.x}px, ${t.box.y}px)`;
    if (g.dataset.signature !== signature(t)) buildTensor(g, t, L);
    fillTensor(g, t, L, animate && !fresh);
    if (fresh) {
      requestAnimationFrame(() => requestAnimationFrame(() => {
        g.classList.remove("entering");
        g.style.transition = "";
      }));
    }
  }
  for (const g of existing.values()) {
    if (!animate) { g.remove(); continue; }
    g.classList.add("leaving");
    g.addEventListener("transitionend", () => g.remove(), { once: true });
    setTimeout(() => g.remove(), 700);
  }
}
