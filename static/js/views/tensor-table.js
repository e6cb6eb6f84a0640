// The text alternative of a slide's matrices: one visually hidden <table> per tensor, with its
// name and shape as the caption, the row and column labels as headers and every value as the
// matrix shows it (−∞ for a masked cell; "not shown yet" for a value the step keeps hidden). The
// SVG drawing itself is hidden from screen readers, except the cells a reader can open.
import { drawnShape, number, shape } from "../lib/format.js";

function el(tag, parent, text = null) {
  const e = document.createElement(tag);
  if (text !== null) e.textContent = text;
  parent.appendChild(e);
  return e;
}

function shown(t, r, c) {
  if (t.reveal === "none") return false;
  if (t.reveal !== "highlight") return true;
  return t.highlight.cols.includes(c) || t.highlight.cells.some(([hr, hc]) => hr === r && hc === c);
}

function table(t) {
  const tab = document.createElement("table");
  tab.dataset.tableFor = t.name;  // not data-tensor: that names the drawing
  el("caption", tab, `${t.label} (${shape(drawnShape(t.shape, t.row_index, t.col_index))})`);
  const head = el("tr", el("thead", tab));
  el("td", head);
  t.cols.forEach((label, j) => el("th", head, label || `column ${t.col_index[j] + 1}`).setAttribute("scope", "col"));
  const body = el("tbody", tab);
  t.values.forEach((row, i) => {
    const tr = el("tr", body);
    el("th", tr, t.rows[i] || `row ${t.row_index[i] + 1}`).setAttribute("scope", "row");
    row.forEach((v, j) => {
      const td = el("td", tr, shown(t, t.row_index[i], t.col_index[j]) ? number(v, t.digits) : "not shown yet");
      if (v === null) td.dataset.masked = "";
    });
  });
  return tab;
}

/** What a tensor's table shows: a table whose tensor says the same is kept as it is. */
function tableKey(t) {
  return JSON.stringify([t.name, t.label, t.shape, t.rows, t.cols, t.row_index, t.col_index, t.values,
    t.digits, t.reveal, t.highlight]);
}

const keys = new WeakMap(); // table → tableKey of the tensor it was written from

/** Replace the section's tables with those of `tensors` (a frame's): only the tables of tensors that
 * changed are written again, inside a box whose layout and paint are contained (`.tensor-tables`).
 * Returns whether anything was written. */
export function renderTables(section, tensors) {
  let box = section.querySelector(":scope > .tensor-tables");
  if (!tensors.length) {  // a step without matrices has no tables, stepped into or loaded alike
    box?.remove();
    return false;
  }
  if (!box) {
    box = el("div", section);
    box.className = "tensor-tables sr-only";
  }
  const old = new Map([...box.children].map((tab) => [keys.get(tab), tab]));
  const tables = tensors.map((t) => {
    const key = tableKey(t);
    let tab = old.get(key);
    if (tab) old.delete(key);
    else keys.set(tab = table(t), key);
    return tab;
  });
  const same = tables.length === box.children.length && tables.every((tab, i) => box.children[i] === tab);
  if (!same) box.replaceChildren(...tables);
  return !same;
}
