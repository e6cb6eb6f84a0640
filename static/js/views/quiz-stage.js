// A question asked on the drawing itself (controllers/quiz.js, on a stage): the tokens a token
// question offers are the labels the step already draws (a tensor's column or row labels, a
// widget's token names), and a cell question's cells are the map's own cells. They become the
// choices: a box around each, focusable, pressed when picked. Only DOM; nothing here is stored.
import { svg } from "./dom.js";

const PAD = 6; // stage px of box around a label, short of its neighbour's

const textOf = (el) => el.textContent.trim();

/** Text groups of one drawn object: its texts by class (a tensor's column labels, its row labels…). */
function groupsOf(obj) {
  const byClass = new Map();
  for (const t of obj.querySelectorAll("text")) {
    if (t.closest("defs")) continue;
    // a tensor's axis, else the text's first class: state classes (a highlighted label) do not split a group
    const key = t.classList.contains("axis-label") ? `axis ${t.classList.contains("col") ? "col" : "row"}`
      : t.classList[0] ?? "";
    if (!byClass.has(key)) byClass.set(key, []);
    byClass.get(key).push(t);
  }
  return [...byClass.entries()];
}

/** The drawn labels that are `q.choices`, in order (column labels first), or null. */
function labelTargets(section, choices) {
  const found = [];
  for (const obj of section.querySelectorAll(".canvas > .tensor, .widget-layer > .widget")) {
    for (const [cls, els] of groupsOf(obj)) {
      if (els.length === choices.length && els.every((el, i) => textOf(el) === choices[i])) {
        found.push({ cols: /\bcol\b/.test(cls), els });
      }
    }
  }
  found.sort((a, b) => Number(b.cols) - Number(a.cols));
  return found[0]?.els ?? null;
}

/** A drawn tensor with these row and column labels: its cells, row by row, or null. */
function cellTargets(section, rows, cols) {
  for (const g of section.querySelectorAll(".canvas > .tensor")) {
    const r = [...g.querySelectorAll(".axis-label.row")].map(textOf);
    const c = [...g.querySelectorAll(".axis-label.col")].map(textOf);
    if (r.join("\u0000") !== rows.join("\u0000") || c.join("\u0000") !== cols.join("\u0000")) continue;
    const cells = rows.map((_, i) => cols.map((_, j) => g.querySelector(`.cell[data-r="${i}"][data-c="${j}"]`)));
    if (cells.flat().every(Boolean)) return cells;
  }
  return null;
}

/** Where `q` can be asked on the drawing of `section` (the active slide): {kind, els} or null. */
export function stageTargets(section, q) {
  if (!section) return null;
  if (q.kind === "token") {
    const els = labelTargets(section, q.choices);
    return els && { kind: "token", els };
  }
  if (q.kind === "cell") {
    const cells = cellTargets(section, q.choices, q.cols);
    return cells && { kind: "cell", els: cells };
  }
  return null;
}

const same = (a, b) => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);

/** The boxes around a row of labels (or a column of them): padded, but never into a neighbour's. */
export function targetBoxes(bbs) {
  const mid = (b) => [b.x + b.width / 2, b.y + b.height / 2];
  const spread = (k) => Math.max(...bbs.map((b) => mid(b)[k])) - Math.min(...bbs.map((b) => mid(b)[k]));
  const along = spread(0) >= spread(1) ? 0 : 1; // labels side by side (0) or stacked (1)
  return bbs.map((b, i) => {
    let lo = along ? b.y - PAD / 2 : b.x - PAD, hi = along ? b.y + b.height + PAD / 2 : b.x + b.width + PAD;
    if (i > 0) lo = Math.max(lo, (mid(bbs[i - 1])[along] + mid(b)[along]) / 2 + 1);
    if (i < bbs.length - 1) hi = Math.min(hi, (mid(b)[along] + mid(bbs[i + 1])[along]) / 2 - 1);
    return along ? { x: b.x - PAD, y: lo, width: b.width + 2 * PAD, height: hi - lo }
      : { x: lo, y: b.y - PAD / 2, width: hi - lo, height: b.height + PAD };
  });
}

function measure(els) {
  try { return targetBoxes(els.map((el) => el.getBBox())); } catch { return null; } // not rendered
}

/** Make one drawn element a choice: a box behind it, a button for keys and screen readers. */
function choice(el, label, picked, locked, onPick, undo, b) {
  const box = b ? svg("rect", { class: "quiz-target", x: b.x, y: b.y, width: b.width, height: b.height, rx: 6 }) : null;
  // a cell is a group placed by its own transform: its box goes inside it, in its coordinates
  if (box) { if (el.tagName === "g") el.prepend(box); else el.before(box); }
  const parts = box ? [box, el] : [el];
  for (const p of parts) p.classList.add("quiz-pickable");
  if (picked) for (const p of parts) p.classList.add("quiz-picked");
  el.classList.add("quiz-choice");
  const attrs = { tabindex: locked ? "-1" : "0", role: "button", "aria-pressed": String(picked),
    "aria-label": `Guess ${label}`, "aria-disabled": String(locked) };
  const before = Object.fromEntries([...Object.keys(attrs), "aria-hidden"].map((k) => [k, el.getAttribute(k)]));
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.removeAttribute("aria-hidden"); // a drawn label is hidden from screen readers (the tables speak); a choice is not
  const click = (e) => { e.stopPropagation(); if (!locked) onPick(); };
  const key = (e) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    e.stopPropagation();
    if (!locked) onPick();
  };
  for (const p of parts) p.addEventListener("click", click);
  el.addEventListener("keydown", key);
  undo.push(() => {
    box?.remove();
    el.classList.remove("quiz-pickable", "quiz-picked", "quiz-choice");
    for (const [k, v] of Object.entries(before)) if (v === null) el.removeAttribute(k); else el.setAttribute(k, v);
    el.removeEventListener("click", click);
    el.removeEventListener("keydown", key);
  });
}

/** Offer `targets` as the choices of `q`; `pick` is the guess so far. Returns the undo. */
export function decorate(targets, q, pick, onAnswer, locked) {
  const undo = [];
  if (targets.kind === "token") {
    const boxes = measure(targets.els);
    targets.els.forEach((el, i) => choice(el, q.choices[i], same(pick ?? [], [i]), locked, () => onAnswer([i]), undo,
      boxes?.[i]));
  } else {
    targets.els.forEach((row, i) => row.forEach((el, j) => choice(el, `row ${q.choices[i]}, column ${q.cols[j]}`,
      same(pick ?? [], [i, j]), locked, () => onAnswer([i, j]), undo, measure([el])?.[0])));
  }
  return () => { for (const u of undo.reverse()) u(); };
}

/** On the reveal step, outline the answer's cell on the drawn tensor it was read from. Returns the undo. */
export function markAnswer(section, reveal) {
  if (!section || !reveal.tensor || reveal.cell?.length !== 2) return null;
  const g = [...section.querySelectorAll(".canvas > .tensor")].find((t) => t.dataset.tensor === reveal.tensor);
  const cell = g?.querySelector(`.cell[data-r="${reveal.cell[0]}"][data-c="${reveal.cell[1]}"]`);
  if (!cell) return null;
  // Where the cell's own rect says it stands, in the tensor's coordinates (views/matrix.js places a
  // cell's rect by x and y, never by a transform): no layout is read in the key's task, and a cell
  // still moving into place is outlined where it lands.
  const rect = cell.querySelector("rect");
  if (!rect) return null;
  const [x, y, w, h] = ["x", "y", "width", "height"].map((a) => parseFloat(rect.getAttribute(a)));
  if (![x, y, w, h].every(Number.isFinite)) return null;
  const box = svg("rect", { class: "quiz-answer-box", x: x - 5, y: y - 5, width: w + 10, height: h + 10,
    rx: 8, "aria-hidden": "true" }, g);
  return () => box.remove();
}
