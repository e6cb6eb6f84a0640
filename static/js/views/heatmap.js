// "heatmap": one measure over every head of a model (rows heads, columns layers), drawn as colour
// without numbers; a cell's number shows on hover or keyboard focus (arrow keys move between
// cells, each named by its head, layer and value). Stage "winner" outlines the top scorer (the
// engine's best_head); stage "zoom" grows its cell into that head's own map of the text.
// Motion (VISUAL.md §3): the outline closes in onto the winner; on zoom, the heatmap dims while a
// ghost of the winning cell grows into the map's place, and the map appears where it lands.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { reducedMotion, svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { travel } from "./motion.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out", STAGES = ["grid", "winner", "zoom"];
const BASE_LEFT = 96, TOP = 84, BOTTOM = 96, NUMBER_CELL = 72;
const pct = (v) => `${Math.round(100 * v)} %`;

function text(parent, content, attrs, size, style = {}) {
  const t = svg("text", attrs, parent);
  t.textContent = content;
  Object.assign(t.style, { fontSize: `${size}px`, fill: "var(--fg)", ...style });
  return t;
}

/** One Tab stop for a grid of focusable cells; the arrows move by row and column. */
function rovingGrid(group, cells, cols) {
  group.dataset.arrows = "grid";
  cells.forEach((c, k) => c.setAttribute("tabindex", k === 0 ? "0" : "-1"));
  group.addEventListener("keydown", (e) => {
    const at = cells.indexOf(e.target);
    if (at < 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const r = Math.floor(at / cols), c = at % cols, rows = cells.length / cols;
    const to = { ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1], ArrowUp: [r - 1, c], ArrowDown: [r + 1, c],
      Home: [r, 0], End: [r, cols - 1] }[e.key];
    if (!to || to[0] < 0 || to[0] >= rows || to[1] < 0 || to[1] >= cols) return;
    e.preventDefault();
    cells[at].setAttribute("tabindex", "-1");
    const next = cells[to[0] * cols + to[1]];
    next.setAttribute("tabindex", "0");
    next.focus({ preventScroll: true });
  });
}

/** The number of a cell, shown beside it while hovered or focused. */
function tip(root) {
  const g = svg("g", { class: "heat-tip", "aria-hidden": "true" }, root);
  const bg = svg("rect", { rx: 6, height: 44 }, g);
  Object.assign(bg.style, { fill: "var(--panel)", stroke: "var(--fg)", strokeWidth: "2" });
  const t = text(g, "", { "dominant-baseline": "central" }, TYPE.label, { fontFamily: "var(--mono)" });
  g.style.display = "none";  // not visibility: continuity reads a hidden visibility as its own, left behind
  return (cell, value, where) => {
    if (!cell) { g.style.display = "none"; return; }
    t.textContent = value;
    g.style.display = "";  // drawn before it is measured
    const w = 16 + t.getComputedTextLength();
    const x = Math.min(where.x, Number(root.getAttribute("width")) - w), y = Math.max(0, where.y - 50);
    bg.setAttribute("x", x); bg.setAttribute("y", y); bg.setAttribute("width", w);
    t.setAttribute("x", x + 8); t.setAttribute("y", y + 22);
    root.appendChild(g);  // on top
  };
}

/** The cells of a grid of `values` in `root`, each named for a screen reader and showing its number
 * (`show`) while hovered or focused: one listener of each kind on `root` for all of them, and the
 * tint as an attribute (hundreds of cells: a listener and an inline style apiece cost the step's
 * frame several milliseconds). */
function cellsOf(root, show, { x0, y0, cw, ch, values, name, fmt, masked = () => false }) {
  const cells = [], at = new Map();
  values.forEach((row, i) => row.forEach((v, j) => {
    const off = masked(i, j);
    const r = svg("rect", { x: x0 + j * cw + 1, y: y0 + i * ch + 1, width: cw - 2, height: ch - 2, rx: 3,
      class: off ? "heat-cell masked-map-cell" : "heat-cell", role: "img", "aria-label": `${name(i, j)}: ${fmt(v)}`,
      "data-value": v, ...(off ? {} : { "fill-opacity": (0.05 + 0.9 * v).toFixed(3) }) }, root);  // masked: the hatch, never a blank
    at.set(r, () => show(r, fmt(v), { x: x0 + j * cw, y: y0 + i * ch }));
    cells.push(r);
  }));
  const on = (e) => at.get(e.target)?.();
  const off = (e) => { if (at.has(e.target)) show(null); };
  root.addEventListener("pointerover", on);
  root.addEventListener("focusin", on);
  root.addEventListener("pointerout", off);
  root.addEventListener("focusout", off);
  return cells;
}

function drawGrid(root, d, box) {
  const g = svg("g", { class: "heat-grid", role: "group", "aria-label": `${d.title}: arrow keys move between the heads` }, root);
  const rows = d.rows.length, cols = d.cols.length;
  // Rows named by words (not index numbers) are drawn at the dense size, with room for the longest.
  const words = d.rows.some((r) => !/^[0-9]+$/.test(r));
  const left = words ? Math.max(BASE_LEFT, 24 + Math.ceil(0.6 * TYPE.dense * Math.max(...d.rows.map((r) => r.length))))
    : BASE_LEFT;
  const cw = (box.w - left - 10) / cols, ch = (box.h - TOP - BOTTOM) / rows;
  text(g, d.title, { x: 0, y: 30 }, TYPE.label, { fontWeight: "700" });
  d.rows.forEach((r, i) => text(g, r, { x: left - 12, y: TOP + (i + 0.5) * ch, "text-anchor": "end", "dominant-baseline": "central",
    class: words ? "" : "axis-label" }, words ? TYPE.dense : TYPE.index, { fill: words ? "var(--fg)" : "var(--muted)" }));
  d.cols.forEach((c, j) => text(g, c, { x: left + (j + 0.5) * cw, y: TOP - 12, "text-anchor": "middle", class: "axis-label" },
    TYPE.index, { fill: "var(--muted)" }));
  text(g, `${d.row_axis} ↓`, { x: 0, y: TOP - 12 }, TYPE.dense, { fill: "var(--muted)" });
  text(g, `${d.col_axis} →`, { x: left, y: TOP + rows * ch + 40 }, TYPE.dense, { fill: "var(--muted)" });
  const show = tip(root);
  const cells = cellsOf(g, show, { x0: left, y0: TOP, cw, ch, values: d.values, fmt: pct,
    name: (i, j) => `${d.col_axis} ${d.cols[j]}, ${d.row_axis} ${d.rows[i]}` });
  rovingGrid(g, cells, cols);
  const [wr, wc] = d.winner;
  if (d.winner_identity) cells[wr * cols + wc].dataset.identity = d.winner_identity;  // flies into its map next
  return { g, cells, cell: { x: left + wc * cw, y: TOP + wr * ch, w: cw, h: ch }, bottom: TOP + rows * ch, left };
}

/** The colour scale under the grid, right-aligned: the same fill as a cell's at 0, 25, 50, 75 and 100 %. */
function drawLegend(root, box, bottom) {
  const g = svg("g", { class: "heat-legend", "aria-hidden": "true" }, root);
  text(g, "100 %", { x: box.w - 10, y: bottom + 40, "text-anchor": "end" }, TYPE.dense, { fill: "var(--muted)" });
  const sw = 44, sh = 26, right = box.w - 10 - Math.ceil(0.62 * TYPE.dense * 5) - 12;  // "100 %", 5 characters
  const x0 = right - 5 * sw;
  [0, 0.25, 0.5, 0.75, 1].forEach((v, k) => {
    const r = svg("rect", { x: x0 + k * sw + 1, y: bottom + 40 - sh + 6, width: sw - 2, height: sh, rx: 3 }, g);
    Object.assign(r.style, { fill: "var(--weights)", fillOpacity: String(0.05 + 0.9 * v) });
  });
  text(g, "0 %", { x: x0 - 12, y: bottom + 40, "text-anchor": "end" }, TYPE.dense, { fill: "var(--muted)" });
  return g;
}

function drawWinner(root, d, at, bottom, left) {
  const g = svg("g", { class: "heat-winner" }, root);
  const o = svg("rect", { x: at.x - 3, y: at.y - 3, width: at.w + 6, height: at.h + 6, rx: 5 }, g);
  Object.assign(o.style, { fill: "none", stroke: "var(--fg)", strokeWidth: "5", transformBox: "fill-box", transformOrigin: "50% 50%" });
  const [wr, wc] = d.winner;
  text(g, `top scorer: ${d.col_axis} ${d.cols[wc]}, ${d.row_axis} ${d.rows[wr]} (${pct(d.values[wr][wc])})`,
    { x: left + 260, y: bottom + 40 }, TYPE.dense, { fontWeight: "700" });
  return { g, o };
}

function drawZoom(root, z, box, score, show) {
  const g = svg("g", { class: "heat-zoom", role: "group", "aria-label": `${z.title}: its weights, arrow keys move between them` }, root);
  const top = 150, left = 130, right = 360;
  const cell = Math.min((box.h - top - 20) / z.rows.length, (box.w - left - right) / z.cols.length, 90);
  const side = { w: cell * z.cols.length, h: cell * z.rows.length };
  const x0 = (box.w - side.w - left - right) / 2 + left, y0 = top;
  const bg = svg("rect", { x: x0 - left - 10, y: 50, width: side.w + left + right + 10, height: box.h - 50, rx: 12 }, g);
  Object.assign(bg.style, { fill: "var(--panel)", stroke: "var(--grid)", strokeWidth: "2" });
  const tx = x0 + side.w + 40;
  text(g, z.title, { x: tx, y: y0 + 20 }, TYPE.label, { fontWeight: "700" });
  text(g, `score ${score}`, { x: tx, y: y0 + 64 }, TYPE.label);
  text(g, "dashed: the cells", { x: tx, y: y0 + 120 }, TYPE.dense, { fill: "var(--muted)" });
  text(g, "the measure averages", { x: tx, y: y0 + 152 }, TYPE.dense, { fill: "var(--muted)" });
  z.rows.forEach((r, i) => text(g, r, { x: x0 - 10, y: y0 + (i + 0.5) * cell, "text-anchor": "end", "dominant-baseline": "central" },
    TYPE.dense));
  z.cols.forEach((c, j) => { const x = x0 + (j + 0.5) * cell, y = y0 - 10;
    text(g, c, { x, y, transform: `rotate(-40 ${x} ${y})` }, TYPE.dense); });
  const cells = cellsOf(g, show, { x0, y0, cw: cell, ch: cell, values: z.weights, fmt: (v) => number(v, 2),
    name: (i, j) => `${z.rows[i]} → ${z.cols[j]}`, masked: (i, j) => z.weights[i][j] === 0 });
  if (cell >= NUMBER_CELL) {
    z.weights.forEach((row, i) => row.forEach((v, j) => text(g, number(v, 2), { x: x0 + (j + 0.5) * cell, y: y0 + (i + 0.5) * cell,
      "text-anchor": "middle", "dominant-baseline": "central", "aria-hidden": "true" }, TYPE.dense,
    { fontFamily: "var(--mono)", pointerEvents: "none", fill: v === 0 ? "var(--dim-fg)" : "var(--fg)" })));
  }
  for (const [q, k] of z.targets) {
    const o = svg("rect", { x: x0 + k * cell + 2, y: y0 + q * cell + 2, width: cell - 4, height: cell - 4, rx: 3 }, g);
    Object.assign(o.style, { fill: "none", stroke: "var(--fg)", strokeWidth: "3", strokeDasharray: "8 5", pointerEvents: "none" });
  }
  rovingGrid(g, cells, z.cols.length);
  return { g, rect: { x: x0, y: y0, w: side.w, h: side.h } };
}

function render(el, w) {
  const d = w.data, box = w.box;
  maskHatch(el.ownerDocument);
  const before = STAGES.indexOf(el.dataset.stage ?? ""), at = STAGES.indexOf(d.stage);
  el.dataset.stage = d.stage;
  const root = svg("svg", { class: "widget-svg heatmap", viewBox: `0 0 ${box.w} ${box.h}`, width: box.w, height: box.h,
    role: "group", "aria-label": d.title });
  el.replaceChildren(root);
  const grid = drawGrid(root, d, box);
  const legend = drawLegend(root, box, grid.bottom);
  const winner = at >= 1 ? drawWinner(root, d, grid.cell, grid.bottom, grid.left) : null;
  const zoom = at >= 2 && d.zoom ? drawZoom(root, d.zoom, box, pct(d.values[d.winner[0]][d.winner[1]]), tip(root)) : null;
  if (zoom) {  // behind the map: dimmed, out of the reading and the Tab order
    grid.g.style.opacity = "0.15"; winner.g.style.opacity = "0.15"; legend.style.opacity = "0";
    grid.g.setAttribute("aria-hidden", "true");
    for (const c of grid.cells) c.removeAttribute("tabindex");
  }
  if (reducedMotion(el) || before >= at) return;
  let t = 0;
  if (before < 1 && winner) {  // the outline closes in onto the top scorer
    winner.o.animate([{ opacity: 0, transform: "scale(3)" }, { opacity: 1, transform: "none" }],
      { duration: 600, easing: EASE, fill: "backwards" });
    winner.g.lastChild.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: 500, fill: "backwards" });
    t = 800;
  }
  if (zoom) {  // the winning cell grows into the head's map; the heatmap dims behind it
    for (const part of [grid.g, winner.g]) part.animate([{ opacity: 1 }, { opacity: 0.15 }],
      { duration: 500, delay: t, easing: EASE, fill: "backwards" });
    travel(root, grid.cell, zoom.rect, "weights", t, { duration: 900 });
    zoom.g.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 400, delay: t + 750, easing: EASE, fill: "backwards" });
  }
}

registerWidget("heatmap", render);
