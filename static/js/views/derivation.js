// Numbers that explain themselves, the drawing half: marks the cells of every tensor whose frame
// carries a `derivation` (computed in Python, frames/derivations.py) as focusable buttons, and lays
// out one cell's derivation, term by term, in a panel beside it. It computes nothing; the
// derivation controller decides when the panel opens and closes.
import { count, number } from "../lib/format.js";
import { STAGE_W } from "../lib/stage-size.js";
import { stylesheet } from "../lib/stylesheet.js";

// The panel's styles live in walkthrough.css, which the first paint does not fetch.
await stylesheet("walkthrough.css");

const CAPTION_TOP = 775, PANEL_W = 540; // stage units: the caption bar's top, the panel's width

const fmt = (v) => number(v, 4);

function span(parent, cls, text, role) {
  const s = document.createElement("span");
  s.className = cls;
  s.textContent = text;
  if (role) s.dataset.role = role;
  parent.appendChild(s);
  return s;
}

function num(parent, value, role) {
  const s = span(parent, "num", fmt(value), role);
  s.dataset.value = value === null ? "-Infinity" : String(value);
  return s;
}

function line(list, cls = "", op = null) {
  const li = document.createElement("li");
  li.className = `deriv-line ${cls}`;
  if (op) li.dataset.op = op;
  list.appendChild(li);
  return li;
}

/** " + … (N more…: sum R)" after the terms shown. */
function rest(li, part, words) {
  if (!(part.more > 0)) return;
  const r = span(li, "rest", "");
  span(r, "op", ` + … (${count(part.more)} ${words}: sum `);
  num(r, part.more_sum, "rest");
  span(r, "op", ")");
}

function result(list, prefix, value, role) {
  const li = line(list, "deriv-result");
  span(li, "op", prefix);
  num(li, value, role);
  return li;
}

/** "sum": labelled products a × b; "add": labelled addends b (a row sum, a residual x + o). */
function sumLines(list, part, products) {
  const li = line(list, "deriv-sum", part.op);
  part.terms.forEach((t, k) => {
    const term = span(li, "term", "");
    if (k > 0) span(term, "op", " + ");
    if (t.label) span(term, "term-label", `${t.label}: `);
    if (products) { num(term, t.a, "a"); span(term, "op", " × "); }
    num(term, t.b, "b");
  });
  rest(li, part, products ? "more terms" : "more");
  result(list, "= ", part.value, "total");
}

function softmaxLines(list, part) {
  const head = line(list, "deriv-softmax", "softmax");
  span(head, "op", "row max m = "); num(head, part.factor, "max");
  const li = line(list, "deriv-exps");
  part.terms.forEach((t, k) => {
    const term = span(li, "term", "");
    if (k > 0) span(term, "op", " + ");
    span(term, "term-label", `${t.label}: exp(`);
    num(term, t.a, "s"); span(term, "op", " − m) = "); num(term, t.b, "e");
  });
  rest(li, part, "more");
  result(list, "Σ = ", part.total, "total");
  const w = result(list, "weight = ", part.num, "num");
  span(w, "op", " / "); num(w, part.total, "den");
  span(w, "op", " = "); num(w, part.value, "result");
}

function renderPart(list, part) {
  if (part.text) span(line(list, "deriv-text"), "", part.text);
  const op = part.op;
  if (op === "sum" || op === "add") {
    sumLines(list, part, op === "sum");
  } else if (op === "softmax") {
    softmaxLines(list, part);
  } else if (op === "scale") {
    const li = line(list, "deriv-scale", "scale");
    span(li, "op", "× "); num(li, part.factor, "factor"); span(li, "op", " = "); num(li, part.value, "result");
  } else if (op === "mask" || op === "copy") {
    const li = line(list, `deriv-${op}`, op);
    span(li, "op", "= "); num(li, part.value, "result");
  }
}

/** The panel, hidden, as the last child of the stage. */
export function createPanel(stage) {
  const panel = document.createElement("aside");
  panel.className = "derivation-panel";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-labelledby", "derivation-title");
  panel.setAttribute("tabindex", "-1");
  panel.hidden = true;
  stage.appendChild(panel);
  return panel;
}

/** Lay out how `cell` of `tensor` was computed; the panel's × button calls `onClose`. `waiting`:
 * the terms are still on the way (the panel shows the cell and says so). */
export function renderDerivation(panel, tensor, cell, onClose, { waiting = false } = {}) {
  panel.replaceChildren();
  const head = document.createElement("header");
  const title = span(head, "deriv-title", `How ${cell.title} was computed`);
  title.id = "derivation-title";
  const close = document.createElement("button");
  close.type = "button";
  close.className = "deriv-close";
  close.setAttribute("aria-label", "Close (Esc)");
  close.textContent = "×";
  close.addEventListener("click", onClose);
  head.appendChild(close);
  panel.appendChild(head);
  const formula = tensor.derivation.formula;
  span(panel, "deriv-formula", tensor.label.includes(formula) ? tensor.label : `${tensor.label} · ${formula}`);
  const list = document.createElement("ol");
  list.className = "deriv-lines";
  if (waiting) span(line(list, "deriv-text deriv-waiting"), "", "Fetching the terms…");
  (cell.parts ?? []).forEach((part) => renderPart(list, part));
  const final = line(list, "deriv-final");
  span(final, "op", "cell value: ");
  num(final, cell.value, "value");
  panel.appendChild(list);
  panel.dataset.tensor = tensor.name;
  panel.dataset.r = String(cell.r);
  panel.dataset.c = String(cell.c);
}

/**
 * Place the panel beside the cell, in stage units, never over the caption bar or off the stage:
 * beside the whole matrix when there is room, so the panel hides none of its cells; else beside
 * the cell itself. It never covers the cell it explains (a click that ends on the panel would
 * otherwise land outside the cell and close it at once).
 */
export function placePanel(panel, stage, cellEl) {
  const sr = stage.getBoundingClientRect(), cr = cellEl.getBoundingClientRect();
  const scale = sr.width / STAGE_W;
  const tr = (cellEl.closest(".tensor") || cellEl).getBoundingClientRect();
  const cy = (cr.top - sr.top) / scale, cb = (cr.bottom - sr.top) / scale;
  const left = (tr.left - sr.left) / scale, right = (tr.right - sr.left) / scale;
  const cl = (cr.left - sr.left) / scale, cRight = (cr.right - sr.left) / scale;
  const h = Math.min(panel.offsetHeight, CAPTION_TOP - 110);
  const fits = (px) => px >= 10 && px + PANEL_W <= STAGE_W - 10;
  const x = [right + 16, left - PANEL_W - 16, cRight + 16, cl - PANEL_W - 16].find(fits)
    ?? Math.max(10, Math.min(STAGE_W - PANEL_W - 10, cRight + 16));
  let y = Math.max(100, Math.min(CAPTION_TOP - h - 5, cy - 40));
  if (x < cRight && x + PANEL_W > cl && y < cb && y + h > cy) {  // still over the cell: above or below it
    y = cb + 12 + h <= CAPTION_TOP - 5 ? cb + 12 : Math.max(100, cy - 12 - h);
  }
  Object.assign(panel.style, { left: `${x}px`, top: `${y}px`, width: `${PANEL_W}px`,
    maxHeight: `${CAPTION_TOP - 110}px` });
}

/** A cell's name: its title and full value; a cell that shows fewer decimals (views/matrix.js, a
 * narrow cell) also names what it shows, so the name contains the visible text. */
function ariaLabel(tensor, cell, shown = "") {
  const v = cell.value === null ? "minus infinity" : number(cell.value, tensor.digits);
  const said = shown && shown !== v && cell.value !== null ? `${shown}, ${v} in full` : v;
  return `${cell.title}: ${said}. Press Enter to see how it was computed.`;
}

const rc = (el) => [Number(el.dataset.r), Number(el.dataset.c)];

/**
 * The derivable cell the arrow `key` moves to from `cell`, in the same tensor: the nearest one in
 * that direction (same row for ← →, same column for ↑ ↓); Home and End go to the row's ends.
 */
export function neighbour(cell, key, cells) {
  const [r, c] = rc(cell);
  const mates = cells.filter((el) => el !== cell && el.closest(".tensor") === cell.closest(".tensor"));
  const pick = (keep, by) => mates.filter((el) => keep(...rc(el))).sort((a, b) => by(...rc(a)) - by(...rc(b)))[0] ?? null;
  switch (key) {
    case "ArrowRight": return pick((r2, c2) => r2 === r && c2 > c, (r2, c2) => c2);
    case "ArrowLeft": return pick((r2, c2) => r2 === r && c2 < c, (r2, c2) => -c2);
    case "ArrowDown": return pick((r2, c2) => c2 === c && r2 > r, (r2) => r2);
    case "ArrowUp": return pick((r2, c2) => c2 === c && r2 < r, (r2) => -r2);
    case "Home": return pick((r2) => r2 === r, (r2, c2) => c2);
    case "End": return pick((r2) => r2 === r, (r2, c2) => -c2);
    default: return null;
  }
}

/** Set (value a string) or remove (null) an attribute, writing only when it changes: a rewrite
 * with the same value still invalidates the element's style. */
function put(el, name, value) {
  if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); } else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** Make the cells of every tensor of `frame` with a derivation focusable; returns cell → {tensor, cell}.
 * Cells that stay derivable from one step to the next keep their attributes; only what differs is
 * written (a step change must not restyle every cell of the slide). */
export function markDerivable(section, frame) {
  const found = new Map(), groups = new Map();
  for (const t of frame.tensors) {
    if (!t.derivation) continue;
    const g = section.querySelector(`.canvas > .tensor:not(.leaving)[data-tensor="${CSS.escape(t.name)}"]`);
    if (!g) continue;
    const byKey = new Map(t.derivation.cells.map((c) => [`${c.r},${c.c}`, c]));
    let first = true;
    for (const el of g.querySelectorAll(".cell")) {
      const cell = byKey.get(`${el.dataset.r},${el.dataset.c}`);
      if (!cell) continue;
      found.set(el, { tensor: t, cell, first });
      first = false;
    }
    if (!first) groups.set(g, t);
  }
  for (const el of section.querySelectorAll(".cell.derivable")) {
    if (found.has(el)) continue;
    el.classList.remove("derivable");
    for (const a of ["tabindex", "role", "aria-label"]) el.removeAttribute(a);
  }
  for (const [el, { tensor, cell, first }] of found) {
    put(el, "tabindex", first ? "0" : "-1");  // one Tab stop per matrix; arrows inside
    put(el, "role", "button");
    put(el, "aria-label", ariaLabel(tensor, cell, el.querySelector("text")?.textContent ?? ""));
    el.classList.toggle("derivable", true);  // add() would write the attribute even when it is there
    found.set(el, { tensor, cell });
  }
  for (const g of section.querySelectorAll(".canvas > .tensor")) {
    const t = groups.get(g);
    put(g, "aria-hidden", t ? null : "true");  // else its table speaks for it (views/tensor-table.js)
    put(g, "role", t ? "group" : null);
    put(g, "aria-label", t ? `${t.label}: arrow keys move between its cells, Enter explains one` : null);
    put(g, "data-arrows", t ? "grid" : null);
  }
  return found;
}
