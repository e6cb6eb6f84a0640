// Numbers that explain themselves: every matrix cell whose tensor carries a `derivation` (computed
// in Python, frames/derivations.py) becomes focusable; clicking it, pressing Enter on it or
// tabbing to it opens a panel showing how the number was made, term by term. The panel only lays
// out numbers from the frame; it computes nothing.
import { formatNumber } from "./format.js";

const STAGE_W = 1600, CAPTION_TOP = 775, PANEL_W = 540;
const cellData = new WeakMap(); // <g class="cell"> → {tensor, cell}
let panel = null, openFor = null;

const fmt = (v) => formatNumber(v, 4);

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

function line(list, cls = "") {
  const li = document.createElement("li");
  li.className = `deriv-line ${cls}`;
  list.appendChild(li);
  return li;
}

function renderPart(list, part) {
  const op = part.op;
  if (part.text) span(line(list, "deriv-text"), "", part.text);
  if (op === "sum") {
    const li = line(list, "deriv-sum");
    li.dataset.op = "sum";
    part.terms.forEach((t, k) => {
      const term = span(li, "term", "");
      if (k > 0) span(term, "op", " + ");
      if (t.label) span(term, "term-label", `${t.label}: `);
      num(term, t.a, "a"); span(term, "op", " × "); num(term, t.b, "b");
    });
    if (part.more > 0) {
      const rest = span(li, "rest", "");
      span(rest, "op", ` + … (${part.more.toLocaleString("en-US")} more terms: sum `);
      num(rest, part.more_sum, "rest");
      span(rest, "op", ")");
    }
    const eq = line(list, "deriv-result");
    span(eq, "op", "= ");
    num(eq, part.value, "total");
  } else if (op === "scale") {
    const li = line(list, "deriv-scale");
    li.dataset.op = "scale";
    span(li, "op", "× "); num(li, part.factor, "factor"); span(li, "op", " = "); num(li, part.value, "result");
  } else if (op === "mask") {
    const li = line(list, "deriv-mask");
    li.dataset.op = "mask";
    span(li, "op", "= "); num(li, part.value, "result");
  } else if (op === "softmax") {
    const head = line(list, "deriv-softmax");
    head.dataset.op = "softmax";
    span(head, "op", "row max m = "); num(head, part.factor, "max");
    const li = line(list, "deriv-exps");
    part.terms.forEach((t, k) => {
      const term = span(li, "term", "");
      if (k > 0) span(term, "op", " + ");
      span(term, "term-label", `${t.label}: exp(`);
      num(term, t.a, "s"); span(term, "op", " − m) = "); num(term, t.b, "e");
    });
    if (part.more > 0) {
      const rest = span(li, "rest", "");
      span(rest, "op", ` + … (${part.more} more: sum `); num(rest, part.more_sum, "rest"); span(rest, "op", ")");
    }
    const tot = line(list, "deriv-result");
    span(tot, "op", "Σ = "); num(tot, part.total, "total");
    const w = line(list, "deriv-result");
    span(w, "op", "weight = "); num(w, part.num, "num"); span(w, "op", " / "); num(w, part.total, "den");
    span(w, "op", " = "); num(w, part.value, "result");
  } else if (op === "add") {
    // a plain sum of numbers (a row sum, a residual x + o): labelled addends, the rest, the total
    const li = line(list, "deriv-sum");
    li.dataset.op = "add";
    part.terms.forEach((t, k) => {
      const term = span(li, "term", "");
      if (k > 0) span(term, "op", " + ");
      if (t.label) span(term, "term-label", `${t.label}: `);
      num(term, t.b, "b");
    });
    if (part.more > 0) {
      const rest = span(li, "rest", "");
      span(rest, "op", ` + … (${part.more.toLocaleString("en-US")} more: sum `);
      num(rest, part.more_sum, "rest");
      span(rest, "op", ")");
    }
    const eq = line(list, "deriv-result");
    span(eq, "op", "= ");
    num(eq, part.value, "total");
  } else if (op === "copy") {
    const li = line(list, "deriv-copy");
    li.dataset.op = "copy";
    span(li, "op", "= "); num(li, part.value, "result");
  }
}

function ensurePanel(stage) {
  if (panel && panel.isConnected) return panel;
  panel = document.createElement("aside");
  panel.className = "derivation-panel";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", "How this number was computed");
  panel.hidden = true;
  stage.appendChild(panel);
  return panel;
}

export function closeDerivation() {
  if (panel) panel.hidden = true;
  if (openFor) openFor.classList.remove("explained");
  openFor = null;
}

export function openDerivation(cellEl) {
  const info = cellData.get(cellEl);
  const stage = document.getElementById("stage");
  if (!info || !stage) return;
  const { tensor, cell } = info;
  const p = ensurePanel(stage);
  p.replaceChildren();
  const head = document.createElement("header");
  span(head, "deriv-title", cell.title);
  const close = document.createElement("button");
  close.type = "button";
  close.className = "deriv-close";
  close.setAttribute("aria-label", "Close");
  close.textContent = "×";
  close.addEventListener("click", closeDerivation);
  head.appendChild(close);
  p.appendChild(head);
  const formula = tensor.derivation.formula;
  span(p, "deriv-formula", tensor.label.includes(formula) ? tensor.label : `${tensor.label} · ${formula}`);
  const list = document.createElement("ol");
  list.className = "deriv-lines";
  cell.parts.forEach((part) => renderPart(list, part));
  const final = line(list, "deriv-final");
  span(final, "op", "cell value: ");
  num(final, cell.value, "value");
  p.appendChild(list);
  p.dataset.tensor = tensor.name;
  p.dataset.r = String(cell.r);
  p.dataset.c = String(cell.c);
  p.hidden = false;
  if (openFor) openFor.classList.remove("explained");
  openFor = cellEl;
  cellEl.classList.add("explained");
  // Place beside the cell, in stage units, never over the caption bar or off the stage.
  const scale = stage.getBoundingClientRect().width / STAGE_W;
  // Beside the whole matrix when there is room, so the panel never hides the other cells.
  const sr = stage.getBoundingClientRect(), cr = cellEl.getBoundingClientRect();
  const tr = (cellEl.closest(".tensor") || cellEl).getBoundingClientRect();
  const cy = (cr.top - sr.top) / scale;
  const left = (tr.left - sr.left) / scale, right = (tr.right - sr.left) / scale;
  const h = Math.min(p.offsetHeight, CAPTION_TOP - 110);
  const fits = (px) => px >= 10 && px + PANEL_W <= STAGE_W - 10;
  // Else beside the cell itself: the panel must never cover the cell it explains (a click that
  // ends on the panel would otherwise land outside the cell and close it at once).
  const cl = (cr.left - sr.left) / scale, cRight = (cr.right - sr.left) / scale;
  const x = [right + 16, left - PANEL_W - 16, cRight + 16, cl - PANEL_W - 16].find(fits)
    ?? Math.max(10, Math.min(STAGE_W - PANEL_W - 10, cRight + 16));
  let y = Math.max(100, Math.min(CAPTION_TOP - h - 5, cy - 40));
  const cb = (cr.bottom - sr.top) / scale;
  if (x < cRight && x + PANEL_W > cl && y < cb && y + h > cy) {  // still over the cell: above or below it
    y = cb + 12 + h <= CAPTION_TOP - 5 ? cb + 12 : Math.max(100, cy - 12 - h);
  }
  Object.assign(p.style, { left: `${x}px`, top: `${y}px`, width: `${PANEL_W}px`, maxHeight: `${CAPTION_TOP - 110}px` });
}

function ariaLabel(tensor, cell) {
  const v = cell.value === null ? "minus infinity" : formatNumber(cell.value, tensor.digits);
  return `${tensor.label}, ${cell.title}: ${v}. Press Enter to see how it was computed.`;
}

/** Make the cells of every tensor with a derivation focusable and explainable. */
export function attachDerivations(section, frame) {
  closeDerivation();
  for (const t of frame.tensors) {
    if (!t.derivation) continue;
    const g = section.querySelector(`.canvas > .tensor[data-tensor="${CSS.escape(t.name)}"]`);
    if (!g) continue;
    const byKey = new Map(t.derivation.cells.map((c) => [`${c.r},${c.c}`, c]));
    for (const el of g.querySelectorAll(".cell")) {
      const cell = byKey.get(`${el.dataset.r},${el.dataset.c}`);
      if (!cell) continue;
      cellData.set(el, { tensor: t, cell });
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-label", ariaLabel(t, cell));
      el.classList.add("derivable");
    }
  }
}

function install() {
  const root = document.getElementById("player");
  if (!root) return;
  root.addEventListener("framedrawn", (e) => {
    const attach = () => {
      const store = window.attentionTalk?.frames;
      if (!store) { setTimeout(attach, 0); return; }
      const frame = store.peek(e.detail.slide, e.detail.step);
      const section = root.querySelector(`#slide-${CSS.escape(e.detail.slide)}`);
      if (frame && section) attachDerivations(section, frame);
    };
    attach();
  });
  const cellOf = (target) => target?.closest?.(".cell.derivable");
  document.addEventListener("click", (e) => {
    const c = cellOf(e.target);
    if (c) { openDerivation(c); return; }
    if (panel && !panel.hidden && !panel.contains(e.target)) closeDerivation();
  });
  document.addEventListener("focusin", (e) => { const c = cellOf(e.target); if (c) openDerivation(c); });
  document.addEventListener("keydown", (e) => {
    const c = cellOf(e.target);
    if (c && e.key === "Enter") { openDerivation(c); e.preventDefault(); }
    if (e.key === "Escape" && panel && !panel.hidden) closeDerivation();
  });
}

install();
