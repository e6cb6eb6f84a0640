// The chosen head's map, drawn as the talk draws a matrix (views/matrix.js's look: cells tinted by
// their colour role, masked cells red, token labels on both axes), sized to the box: numbers in the
// cells while they fit, colour alone beyond. One cell at a time takes the keyboard focus (arrows
// move it, Enter opens its derivation); the numbers are also a real <table> on request.
import { number } from "../lib/format.js";
import { svg } from "../views/dom.js";

const COL_FONT = 15, MIN_CELL = 7, MAX_CELL = 64, NUMBER_CELL = 46;

const TITLES = {
  scores: (r, c) => `score: q(${r}) · k(${c})`,
  masked: (r, c) => `masked score: ${r} → ${c}`,
  weights: (r, c) => `weight: ${r} → ${c}`,
};

/** A token as text on one line: a newline, tab or return drawn as ↵, ⇥, ␍. */
export function shown(token) { return token.replace(/\n/g, "↵").replace(/\t/g, "⇥").replace(/\r/g, "␍"); }

export function quoted(token) { return `“${shown(token)}”`; }

function range(values) {
  let min = Infinity, max = -Infinity;
  for (const row of values) for (const v of row) if (v !== null) { if (v < min) min = v; if (v > max) max = v; }
  return { min, max };
}

const CHAR_W = 0.61; // DejaVu Sans Mono's advance, in em

/** The room the longest token label needs, in px at `size` px. */
function measure(tokens, size) {
  const longest = Math.max(...tokens.map((t) => t.length), 1);
  return Math.min(190, 18 + longest * CHAR_W * size);
}

export class MapView {
  /** `onOpen(row, col, cellEl)` asks for a cell's derivation. */
  constructor(svgEl, tableBox, onOpen) {
    this.svg = svgEl;
    this.tableBox = tableBox;
    this.onOpen = onOpen;
    this.cells = [];
    this.shape = "";
    this.active = [0, 0];
    this.data = null;
    svgEl.addEventListener("click", (e) => {
      const cell = e.target.closest?.(".cell");
      if (cell) { this.focusCell(cell); this.onOpen(Number(cell.dataset.r), Number(cell.dataset.c), cell); }
    });
    svgEl.addEventListener("keydown", (e) => this.key(e));
  }

  /** {tokens, values (n × n, null = −∞), kind, name, label} */
  render(data, width) {
    this.data = data;
    const n = data.tokens.length;
    const gutter = measure(data.tokens, 16);
    const cw = Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor((width - gutter - 24) / Math.max(n, 1))));
    const shape = `${data.tokens.join("\u0000")}#${cw}`;
    if (shape !== this.shape) this.build(data.tokens, cw);
    this.shape = shape;
    this.fill(data, cw);
    if (!this.tableBox.hidden) this.renderTable();
  }

  build(tokens, cw) {
    const n = tokens.length;
    const labelSize = Math.min(16, Math.max(11, cw * 0.75));
    const colSize = Math.min(COL_FONT, labelSize);
    const top = 16 + colSize + (measure(tokens, colSize) - 18) * Math.sin((55 * Math.PI) / 180);
    const gutter = measure(tokens, labelSize);
    this.svg.replaceChildren();
    const width = gutter + n * cw + 24; // room for the last column label's slant
    this.svg.setAttribute("viewBox", `0 0 ${width} ${top + n * cw + 8}`);
    this.svg.setAttribute("width", String(width));
    this.svg.setAttribute("height", String(top + n * cw + 8));
    tokens.forEach((t, i) => {
      const y = top + i * cw + cw / 2;
      const row = svg("text", { class: "axis-label row token", x: gutter - 8, y, "text-anchor": "end",
        "dominant-baseline": "central", "font-size": labelSize, "data-r": i }, this.svg);
      row.textContent = shown(t);
      const x = gutter + i * cw + cw / 2;
      const col = svg("text", { class: "axis-label col token", x: 0, y: 0, "text-anchor": "start",
        "font-size": colSize, transform: `translate(${x},${top - 6}) rotate(-55)`, "data-c": i },
      this.svg);
      col.textContent = shown(t);
    });
    const cells = svg("g", { class: "cells" }, this.svg);
    this.cells = [];
    for (let r = 0; r < n; r++) {
      const row = [];
      for (let c = 0; c < n; c++) {
        const g = svg("g", { class: "cell", "data-r": r, "data-c": c, role: "button", tabindex: -1,
          transform: `translate(${gutter + c * cw},${top + r * cw})` }, cells);
        svg("rect", { width: cw - 1, height: cw - 1, x: 0.5, y: 0.5, rx: Math.min(4, cw / 6) }, g);
        if (cw >= NUMBER_CELL) svg("text", { x: cw / 2, y: cw / 2, "font-size": Math.min(16, cw / 3.4) }, g);
        row.push(g);
      }
      this.cells.push(row);
    }
    const [ar, ac] = this.active;
    this.active = ar < n && ac < n ? [ar, ac] : [0, 0];
    this.cells[this.active[0]]?.[this.active[1]]?.setAttribute("tabindex", "0");
  }

  fill(data, cw) {
    const { min, max } = range(data.values);
    const heat = (v) => (data.name === "weights" ? v : (v - min) / (max - min || 1));
    const cap = cw >= NUMBER_CELL ? 0.5 : 0.92; // with text: ≥ 4.5:1 on the hottest cell, as in the talk
    const title = TITLES[data.name];
    this.svg.setAttribute("class", `lab-map kind-${data.kind}`);
    data.values.forEach((row, r) => row.forEach((v, c) => {
      const g = this.cells[r][c];
      g.classList.toggle("masked", v === null);
      g.style.setProperty("--a", v === null ? "0.16" : (0.04 + cap * Math.max(0, heat(v))).toFixed(3));
      const text = number(v, 2);
      if (g.lastChild.tagName === "text") g.lastChild.textContent = text;
      g.setAttribute("aria-label",
        `${title(quoted(data.tokens[r]), quoted(data.tokens[c]))} = ${number(v, 4)}. Enter: how it was computed.`);
    }));
  }

  focusCell(cell) {
    const [r, c] = this.active;
    this.cells[r]?.[c]?.setAttribute("tabindex", "-1");
    this.active = [Number(cell.dataset.r), Number(cell.dataset.c)];
    cell.setAttribute("tabindex", "0");
    cell.focus({ preventScroll: true });
  }

  key(e) {
    const cell = e.target.closest?.(".cell");
    if (!cell) return;
    const n = this.cells.length;
    const [r, c] = [Number(cell.dataset.r), Number(cell.dataset.c)];
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      const nr = Math.max(0, Math.min(n - 1, r + dr)), nc = Math.max(0, Math.min(n - 1, c + dc));
      this.focusCell(this.cells[nr][nc]);
      e.preventDefault();
    } else if (e.key === "Enter" || e.key === " ") {
      this.onOpen(r, c, cell);
      e.preventDefault();
    }
  }

  /** The cell element at (r, c), if drawn. */
  cell(r, c) { return this.cells[r]?.[c] ?? null; }

  toggleTable(show) {
    this.tableBox.hidden = !show;
    if (show) this.renderTable();
    else this.tableBox.replaceChildren();
  }

  renderTable() {
    const { tokens, values, label } = this.data;
    const table = document.createElement("table");
    table.className = "lab-table";
    const cap = table.createCaption();
    cap.textContent = `${label}: row = the query token, column = the key token`;
    const head = table.createTHead().insertRow();
    const corner = document.createElement("td");
    head.append(corner, ...tokens.map((t) => {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = shown(t);
      return th;
    }));
    const body = table.createTBody();
    values.forEach((row, r) => {
      const tr = body.insertRow();
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = shown(tokens[r]);
      tr.append(th);
      for (const v of row) tr.insertCell().textContent = number(v, 3);
    });
    this.tableBox.replaceChildren(table);
  }
}
