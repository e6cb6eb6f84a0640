// Draws a frame's tensors as SVG matrices. Tensors are keyed by name: one that stays from a step
// to the next moves and recolours (CSS transitions); a new one fades in; a gone one fades out.
import { drawnShape, number, shape } from "../lib/format.js";
import { TYPE } from "../lib/type.js";
import { svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { motionFor } from "./moving.js";

const TITLE_H = 40, COL_H = 34, GAP = 0.6, MAX_CW = 120, MAX_CH = 62;
// Stage units (lib/type.js): a cell's number is never under TYPE.dense (20 CSS px at 1280 × 720), and
// keeps PAD units (4 CSS px there) clear of its cell's edge on each side, beside the rect's inset.
const MIN_FONT = TYPE.dense, MAX_FONT = 30, MONO_EM = 0.62, PAD = 6;

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
  const rowW = t.gutter ?? Math.min(190, 16 + longestRow * 15);
  const gw = t.box.w - rowW, gh = t.box.h - TITLE_H - COL_H;
  const cw = Math.min(MAX_CW, gw / (t.cols.length + GAP * countGaps(t.col_index)));
  const ch = Math.min(MAX_CH, gh / (t.rows.length + GAP * countGaps(t.row_index)));
  const { digits, font, fits } = cellType(t, cw, ch);
  return { rowW, cw, ch, font, digits, fits, cols: positions(t.col_index, cw), rows: positions(t.row_index, ch) };
}

/** The cells' font size and how many decimals fit: never under MIN_FONT stage units; a cell too
 * narrow for the frame's digits at that size shows fewer decimals (its derivation panel still shows
 * every digit). Numbers are never squeezed: when even the fewest decimals do not fit, `fits` is
 * false and the cells' numbers are hidden (the cell's tint still shows the value, its derivation and
 * the screen reader's table give it). */
export function cellType(t, cw, ch) {
  const fit = (digits) => {
    const longest = Math.max(...t.values.flat().map((v) => number(v, digits).length), 1);
    return Math.min(ch * 0.68, (cw - 2 - 2 * PAD) / (longest * MONO_EM), MAX_FONT);
  };
  let digits = t.digits;
  while (digits > 0 && fit(digits) < MIN_FONT && keepsValues(t, digits - 1)) digits--;
  const font = fit(digits);
  return { digits, font: Math.max(MIN_FONT, font), fits: font >= MIN_FONT };
}

/** Fewer decimals must not wipe the numbers out: at most a quarter of the non-zero values may
 * show as zero. */
function keepsValues(t, digits) {
  const nonzero = t.values.flat().filter((v) => v !== null && v !== 0);
  const wiped = nonzero.filter((v) => Number(Math.abs(v).toFixed(digits)) === 0).length;
  return wiped <= nonzero.length / 4;
}

function valueRange(t) {
  const vals = t.values.flat().filter((v) => v !== null);
  return { absMax: Math.max(...vals.map(Math.abs), 1e-12) };
}

/** Where a value sits on its tensor's scale: `f` from 0 (no tint beyond the floor) to 1 (the role's
 * strongest tint, --top in colours.css, ≥ 3:1 against the page), and `neg` below zero. One rule for
 * every tensor: a signed one (scores, projections) diverges around zero, its negative half in
 * --negative, so −1.7 and +2.7 never look alike; a tensor with no negatives (weights, sums, counts)
 * shades from zero. The theme picks the colours and the top tint; the scale is the frame's. */
export function shadeOf(v, range) {
  if (v === null) return { f: 0, neg: false };
  return { f: Math.min(1, Math.abs(v) / range.absMax), neg: v < 0 };
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
  const title = svg("text", { class: "tensor-title", x: 0, y: 30 }, g);
  title.append(document.createTextNode(""));
  svg("tspan", { class: "tensor-shape", dx: 14 }, title);
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
  // A cell's rect and text are placed by x and y, not by a transform on the cell: a transform
  // attribute per cell (a presentation attribute of its own value) doubled the style recalculation
  // of a new matrix (300 cells: 14.7 → 6.8 ms in Chromium, benchmarks/steps.py --phases).
  t.values.forEach((row, i) => row.forEach((_, j) => {
    const x = gx + L.cols.out[j], y = gy + L.rows.out[i];
    const cell = svg("g", { class: "cell", "data-r": t.row_index[i], "data-c": t.col_index[j] }, cells);
    svg("rect", { width: L.cw - 2, height: L.ch - 2, x: x + 1, y: y + 1, rx: 4 }, cell);
    svg("text", { x: x + L.cw / 2, y: y + L.ch / 2 }, cell);
  }));
  svg("rect", { class: "row-hl", x: gx - 4, width: L.cols.extent + 8, height: L.ch + 4, rx: 8 }, g);
  g.dataset.signature = signature(t);
  // Read as a table (views/tensor-table.js) and through its cells' own names, not as loose text.
  for (const el of g.querySelectorAll(":scope > text")) el.setAttribute("aria-hidden", "true");
}

/** What the grid's geometry depends on: when it changes the inside is rebuilt. Everything else a
 * frame says (label, kind, shape, highlight, reveal, values, font size) is applied on every step by
 * dressTensor and fillTensor, so stepping into a step and loading it draw the same thing. */
function signature(t) {
  return [t.rows.join("|"), t.cols.join("|"), t.row_index.join(","), t.col_index.join(","),
    t.box.w, t.box.h, t.gutter ?? ""].join("#");
}

/** The title (label and shape) and the colour role: re-applied on every step. */
function dressTensor(g, t) {
  const title = g.querySelector(".tensor-title");
  setAttr(title, "class", `tensor-title kind-${t.kind}`);
  if (title.firstChild.nodeValue !== t.label) title.firstChild.nodeValue = t.label;
  const dims = shape(drawnShape(t.shape, t.row_index, t.col_index));
  const sh = title.querySelector(".tensor-shape");
  if (sh.textContent !== dims) sh.textContent = dims;
}

/** Set an attribute only when its value changes: an unchanged write still invalidates the style
 * (an SVG presentation attribute) or the layout (text) of the element on the next frame. */
function setAttr(el, name, value) {
  const v = String(value);
  if (el.getAttribute(name) !== v) el.setAttribute(name, v);
}

/** Write a text element's words in place (its one text node), only when they change: a new text
 * node costs the SVG text a new layout. */
function setText(el, text) {
  const node = el.firstChild;
  if (node && node.nodeType === Node.TEXT_NODE && !node.nextSibling) {
    if (node.nodeValue !== text) node.nodeValue = text;
  } else if (el.textContent !== text) {
    el.textContent = text;
  }
}

/** Fill values, colours and highlights into an already-built group (`built`: just now). Only what
 * differs from the group's previous step is written (classList.toggle is a no-op when the class is
 * already right), so a step that keeps a tensor as it was leaves its nodes untouched. A value not
 * shown has no words (laying out an SVG text is most of a new matrix's layout), except while it
 * fades out (`fades`: motion is on): a value shown on the step before keeps its words until its
 * fade ends, so stepping to a step and loading it end with the same drawing. */
function fillTensor(g, t, L, built = false, fades = false) {
  const swept = [];
  const range = valueRange(t);
  const hl = highlightSets(t);
  const blocked = new Set((t.masked ?? []).map(([r, c]) => `${r},${c}`));
  if (blocked.size || t.values.some((row) => row.includes(null))) maskHatch(g.ownerDocument);
  const anyRow = hl.rows.size > 0;
  const cellEls = g.querySelectorAll(".cell");
  const font = L.font.toFixed(1);
  let k = 0;
  t.values.forEach((row, i) => row.forEach((v, j) => {
    const cell = cellEls[k++];
    const r = t.row_index[i], c = t.col_index[j];
    const isHl = hl.cells.has(`${r},${c}`) || hl.cols.has(c);
    const masked = v === null || blocked.has(`${r},${c}`);
    const wasMasked = cell.classList.contains("masked");
    const hidden = !L.fits || t.reveal === "none" || (t.reveal === "highlight" && !isHl);
    const wasHidden = built || cell.classList.contains("hidden-value");
    cell.classList.toggle("masked", masked);
    cell.classList.toggle("hl", isHl);
    cell.classList.toggle("dim", anyRow && !hl.rows.has(r));
    cell.classList.toggle("hidden-value", hidden);
    const { f, neg } = shadeOf(masked ? null : v, range);
    const shade = f.toFixed(3);
    if (cell.style.getPropertyValue("--f") !== shade) cell.style.setProperty("--f", shade);
    cell.classList.toggle("neg", neg);
    if (masked && !wasMasked) swept.push({ cell, r, c });
    const text = cell.lastChild;
    setAttr(text, "font-size", font);
    setText(text, hidden && (wasHidden || !fades) ? "" : maskedText(v, masked, L.digits));
    if (hidden && !wasHidden && fades) wordsGoWithTheFade(cell, text);
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
    setAttr(band, "y", TITLE_H + COL_H + top - 2);
    setAttr(band, "height", bottom - top + 4);
  }
  return swept;
}

/** A value hidden with a fade keeps its words until the fade (its opacity transition) is over or
 * cut short; then they go, unless the cell is shown again meanwhile. */
function wordsGoWithTheFade(cell, text) {
  const done = (e) => {
    if (e.target !== text || e.propertyName !== "opacity") return;
    text.removeEventListener("transitionend", done);
    text.removeEventListener("transitioncancel", done);
    if (cell.classList.contains("hidden-value")) setText(text, "");
  };
  text.addEventListener("transitionend", done);
  text.addEventListener("transitioncancel", done);
}

/** A masked cell's words: "−∞" for a score (null), a plain "0" for the weight the mask made zero
 * (greyed by .cell.masked), never "0.00": the zero is the mask's, not a rounding. */
function maskedText(v, masked, digits) {
  if (!masked || v === null) return number(v, digits);
  return "0";
}

/** Where a tensor sits: when it changes, the tensor moves there. */
const placeOf = (t) => `${t.box.x},${t.box.y}`;

/** Draw a frame's tensors; returns the phases of the step change (views/motion.js) so that notes
 * and widgets enter with the matrices. */
export function renderTensors(canvas, tensors) {
  const m = motionFor(canvas), animate = m !== null; // views/motion.js, if it may move and is loaded
  const existing = new Map([...canvas.querySelectorAll(":scope > .tensor:not(.leaving)")]
    .map((g) => [g.dataset.tensor, g]));
  const names = new Set(tensors.map((t) => t.name));
  const gone = [...existing.values()].filter((g) => !names.has(g.dataset.tensor));
  const moving = tensors.some((t) => existing.has(t.name) && existing.get(t.name).dataset.place !== placeOf(t));
  const ph = animate ? m.phases({ leaving: gone.length > 0, moving }) : { move: 0, enter: 0 };
  for (const g of gone) {
    if (!animate) { g.remove(); continue; }
    g.classList.add("leaving");
    m.fadeOut(g);
  }
  const drawn = new Map();
  for (const t of tensors) {
    let g = existing.get(t.name);
    const fresh = !g;
    if (fresh) g = svg("g", { "data-tensor": t.name }, canvas);
    const before = fresh ? null : { kind: g.dataset.kind, rows: g.dataset.rows, signature: g.dataset.signature,
      cells: g.dataset.cells };
    const L = layout(t);
    setAttr(g, "class", `tensor kind-${t.kind}`);
    const delay = ph.move ? `${ph.move}ms` : "", at = `translate(${t.box.x}px, ${t.box.y}px)`;
    if (g.style.transitionDelay !== delay) g.style.transitionDelay = delay;
    if (g.style.transform !== at) g.style.transform = at;
    const data = { place: placeOf(t), kind: t.kind, rows: t.row_index.join(","), cells: JSON.stringify(t.highlight.cells) };
    for (const [key, value] of Object.entries(data)) if (g.dataset[key] !== value) g.dataset[key] = value;
    const built = g.dataset.signature !== signature(t);
    if (built) buildTensor(g, t, L);
    dressTensor(g, t);
    const swept = fillTensor(g, t, L, built, animate);
    drawn.set(t.name, { t, L, g });
    if (!animate) continue;
    if (fresh) m.fadeIn(g, ph.enter);
    explain(m, g, t, before, swept, fresh ? ph.enter : ph.move);
  }
  if (animate) meetInCell(m, canvas, drawn, existing, ph.enter + 200);
  if (animate) mixIntoRow(m, canvas, drawn, ph.enter + 300);
  return ph;
}

/** The motions a matrix's own change calls for (see views/motion.js). */
function explain(m, g, t, before, swept, delay) {
  const cells = [...g.querySelectorAll(".cell")];
  const rowOf = (cell) => t.row_index.indexOf(Number(cell.dataset.r));
  if (t.kind === "weights" && (!before || before.kind !== "weights")) { m.growBars(cells, rowOf, delay); return; }
  if (!before) return;
  if (swept.length) m.sweepMask(swept, delay);
  const old = before.rows ? before.rows.split(",").map(Number) : [];
  const rows = t.row_index;
  if (before.signature !== g.dataset.signature && rows.length > old.length && old.every((r, i) => rows[i] === r)) {
    const added = rows.slice(old.length).map((r) => cells.filter((c) => Number(c.dataset.r) === r));
    m.appendRows(added, delay);
  }
}

/** One highlighted score cell, newly shown, with its query row and key column highlighted in
 * other matrices: ghosts of the row and the column travel into the cell. */
function meetInCell(m, canvas, drawn, existing, delay) {
  for (const { t, L, g } of drawn.values()) {
    if (t.highlight.cells.length !== 1 || t.reveal !== "highlight") continue;
    const [r, c] = t.highlight.cells[0];
    if (existing.get(t.name) && g.dataset.met === `${r},${c}`) continue;
    g.dataset.met = `${r},${c}`;
    const q = [...drawn.values()].find((d) => d.t !== t && d.t.highlight.rows.includes(r));
    const k = [...drawn.values()].find((d) => d.t !== t && d.t.highlight.cols.includes(c));
    if (!q || !k) continue;
    const cell = cellRect(t, L, r, c);
    const target = g.querySelector(`.cell[data-r="${r}"][data-c="${c}"] text`);
    if (!cell || !target) continue;
    m.meet(canvas, { row: lineRect(q.t, q.L, "row", r), col: lineRect(k.t, k.L, "col", c), cell, target,
      kinds: [q.t.kind, k.t.kind] }, delay);
  }
}

/** A weights row in focus, the value rows beside it and the output row it makes, newly shown:
 * the value rows, each as strong as its weight, travel into the output row. */
function mixIntoRow(m, canvas, drawn, delay) {
  const all = [...drawn.values()];
  const w = all.find((d) => d.t.kind === "weights" && d.t.highlight.rows.length === 1);
  const v = all.find((d) => d.t.kind === "value");
  if (!w || !v) return;
  const r = w.t.highlight.rows[0];
  const o = all.find((d) => d.t.kind === "output" && d.t.highlight.rows.includes(r));
  if (!o || o.g.dataset.mixed === String(r)) return;
  o.g.dataset.mixed = String(r);
  const i = w.t.row_index.indexOf(r);
  const rows = v.t.row_index.filter((vr) => w.t.col_index.includes(vr));
  if (i < 0 || !rows.length || !o.t.row_index.includes(r)) return;
  m.mix(canvas, { rows: rows.map((vr) => lineRect(v.t, v.L, "row", vr)),
    weights: rows.map((vr) => w.t.values[i][w.t.col_index.indexOf(vr)] ?? 0),
    out: lineRect(o.t, o.L, "row", r), kind: v.t.kind,
    target: [...o.g.querySelectorAll(`.cell[data-r="${r}"] text`)] }, delay);
}

/** A cell, a whole row or a whole column of a drawn tensor, in canvas units. */
function cellRect(t, L, r, c) {
  const i = t.row_index.indexOf(r), j = t.col_index.indexOf(c);
  if (i < 0 || j < 0) return null;
  return { x: t.box.x + L.rowW + L.cols.out[j], y: t.box.y + TITLE_H + COL_H + L.rows.out[i], w: L.cw, h: L.ch };
}

function lineRect(t, L, which, idx) {
  const x0 = t.box.x + L.rowW, y0 = t.box.y + TITLE_H + COL_H;
  if (which === "row") {
    const i = t.row_index.indexOf(idx);
    return { x: x0, y: y0 + L.rows.out[i], w: L.cols.extent, h: L.ch };
  }
  const j = t.col_index.indexOf(idx);
  return { x: x0 + L.cols.out[j], y: y0, w: L.cw, h: L.rows.extent };
}
