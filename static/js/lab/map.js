// The chosen head's map in the talk's matrix look (views/matrix.js: cells tinted by their colour
// role on the same scale, signed maps diverging, masked cells hatched, token labels on both axes, numbers in the cells while they fit), sized to
// the box. The cells are painted on a canvas (64 × 64 cells redraw in a millisecond or two, where
// as many SVG nodes would stall typing); the labels and the cursor are SVG above it. The canvas
// takes the keyboard focus: arrows move the cursor cell, Enter or a click opens its derivation, and
// the cell under the cursor is written out (and announced). The numbers are also a <table>.
import { number } from "../lib/format.js";
import { svg } from "../views/dom.js";
import { mapTable, quoted, shown } from "./table.js";

const COL_FONT = 15, MIN_CELL = 7, TOUCH_CELL = 20, MAX_CELL = 64, NUMBER_CELL = 44, CHAR_W = 0.61; // mono advance, em

const TITLES = {
  scores: (r, c) => `score q(${r}) · k(${c})`,
  masked: (r, c) => `masked score ${r} → ${c}`,
  weights: (r, c) => `weight ${r} → ${c}`,
};

function absMax(values) {
  let m = 1e-12;
  for (const row of values) for (const v of row) if (v !== null && Math.abs(v) > m) m = Math.abs(v);
  return m;
}

/** The talk's masked hatch (views/hatch.js, talk.css .masked-hatch) as a canvas pattern: the same
 * stripes, in the theme's --mask-line on --mask-bg. */
function hatchPattern(ctx, line, bg) {
  const tile = document.createElement("canvas");
  tile.width = tile.height = 10;
  const t = tile.getContext("2d");
  t.fillStyle = bg;
  t.fillRect(0, 0, 10, 10);
  t.strokeStyle = line;
  t.lineWidth = 3.5;
  t.lineCap = "square";
  for (const k of [-10, 0, 10]) { t.beginPath(); t.moveTo(k, 10); t.lineTo(k + 10, 0); t.stroke(); }
  return ctx.createPattern(tile, "repeat");
}

/** The room the longest token label needs, in px at `size` px, in steps of 24 px (so the layout
 * changes with the token count, not with every letter typed). */
function room(tokens, size) {
  const longest = Math.max(...tokens.map((t) => t.length), 1);
  return Math.ceil(Math.min(190, 18 + longest * CHAR_W * size) / 24) * 24;
}

export class MapView {
  /** `onOpen(row, col, element)` asks for a cell's derivation. */
  constructor({ stage, svgEl, canvas, readout, tableBox }, onOpen) {
    Object.assign(this, { stage, svg: svgEl, canvas, readout, tableBox, onOpen });
    this.shape = "";
    this.cursor = [0, 0];
    this.data = null;
    this.g = null;
    canvas.addEventListener("click", (e) => {
      const cell = this.at(e);
      if (!cell) return;
      this.move(...cell);
      canvas.focus({ preventScroll: true });
      this.onOpen(...cell, canvas);
    });
    canvas.addEventListener("pointermove", (e) => { const cell = this.at(e); if (cell) this.move(...cell); });
    canvas.addEventListener("keydown", (e) => this.key(e));
  }

  at(e) {
    if (!this.g) return null;
    const { n, cw } = this.g;
    const r = Math.floor(e.offsetY / cw), c = Math.floor(e.offsetX / cw);
    return r >= 0 && c >= 0 && r < n && c < n ? [r, c] : null;
  }

  /** {tokens, values (n × n, null = −∞), kind, name, label, masked (the masked map, when known: a
   * weight whose score there is null is the mask's zero)}, drawn in at most `width` × `height` px. */
  render(data, width, height) {
    this.data = data;
    const n = Math.max(data.tokens.length, 1);
    const fit = Math.min((width - room(data.tokens, 16) - 24) / n, (height - room(data.tokens, 15) - 30) / n);
    // On a phone the cells stay big enough to tap and their labels to read; the map scrolls.
    const cw = Math.max(window.innerWidth < 700 ? TOUCH_CELL : MIN_CELL, Math.min(MAX_CELL, Math.floor(fit)));
    const labelSize = Math.min(16, Math.max(12, cw * 0.75));
    const colSize = Math.min(COL_FONT, labelSize);
    const g = { n, cw, labelSize, colSize, gutter: room(data.tokens, labelSize),
      top: Math.round(16 + colSize + (room(data.tokens, colSize) - 18) * Math.sin((55 * Math.PI) / 180)) };
    const shape = JSON.stringify(g);
    if (shape !== this.shape) this.build(g);
    this.shape = shape;
    this.label(data.tokens);
    this.paint();
    this.move(...this.cursor.map((i) => Math.min(i, n - 1)));
    if (!this.tableBox.hidden) this.tableBox.replaceChildren(mapTable(data));
  }

  build(g) {
    this.g = g;
    const { n, cw, labelSize, colSize, gutter, top } = g;
    const width = gutter + n * cw + 24, height = top + n * cw + 8; // room for the last label's slant
    Object.assign(this.stage.style, { width: `${width}px`, height: `${height}px` });
    for (const [k, v] of Object.entries({ viewBox: `0 0 ${width} ${height}`, width, height })) this.svg.setAttribute(k, v);
    Object.assign(this.canvas.style, { left: `${gutter}px`, top: `${top}px`, width: `${n * cw}px`, height: `${n * cw}px` });
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(n * cw * dpr);
    this.canvas.height = Math.round(n * cw * dpr);
    this.canvas.dataset.cell = String(cw);
    this.svg.replaceChildren();
    this.rows = [];
    this.cols = [];
    for (let i = 0; i < n; i++) {
      this.rows.push(svg("text", { class: "axis-label row token", x: gutter - 8, y: top + i * cw + cw / 2,
        "text-anchor": "end", "dominant-baseline": "central", "data-r": i }, this.svg));
      this.cols.push(svg("text", { class: "axis-label col token", x: 0, y: 0, "data-c": i,
        transform: `translate(${gutter + i * cw + cw / 2},${top - 6}) rotate(-55)` }, this.svg));
      // a style, not the font-size attribute: the talk's .axis-label.token rule would win over that
      this.rows[i].style.fontSize = `${labelSize}px`;
      this.cols[i].style.fontSize = `${colSize}px`;
    }
    this.box = svg("rect", { class: "map-cursor", width: cw, height: cw, rx: Math.min(5, cw / 5) }, this.svg);
  }

  label(tokens) {
    tokens.map(shown).forEach((t, i) => {
      if (this.rows[i].textContent !== t) this.rows[i].textContent = t;
      if (this.cols[i].textContent !== t) this.cols[i].textContent = t;
    });
  }

  paint() {
    const { n, cw } = this.g;
    const { values, kind, masked } = this.data;
    const css = getComputedStyle(this.stage);
    const colour = (v) => css.getPropertyValue(v).trim();
    const role = kind === "weights" ? "--weights" : "--scores";
    const [tint, negative, grid, fg, maskText, maskLine, maskBg] = [role, "--negative", "--grid", "--fg",
      "--mask-text", "--mask-line", "--mask-bg"].map(colour);
    // The talk's scale (views/matrix.js shadeOf, colours.css): floor to the role's strongest tint.
    const [floor, top, negTop] = ["--tint-floor", `${role}-top`, "--negative-top"].map((v) => parseFloat(colour(v)));
    const most = absMax(values);
    const numbers = cw >= NUMBER_CELL;
    const ctx = this.canvas.getContext("2d");
    const hatch = hatchPattern(ctx, maskLine, maskBg);
    const isMasked = (v, r, c) => v === null || (kind === "weights" && masked?.[r]?.[c] === null);
    const dpr = this.canvas.width / (n * cw);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, n * cw, n * cw);
    ctx.font = `${Math.min(16, (cw - 8) / 2.5)}px ${colour("--mono")}`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    values.forEach((row, r) => row.forEach((v, c) => {
      const x = c * cw + 0.5, y = r * cw + 0.5, s = cw - 1;
      const off = isMasked(v, r, c);
      if (off) {
        ctx.globalAlpha = 1;
        ctx.fillStyle = hatch;
      } else {
        ctx.globalAlpha = 0.3;
        ctx.fillStyle = grid;
        ctx.fillRect(x, y, s, s);
        const f = Math.min(1, Math.abs(v) / most);
        ctx.globalAlpha = floor + ((v < 0 ? negTop : top) - floor) * f;
        ctx.fillStyle = v < 0 ? negative : tint;
      }
      ctx.fillRect(x, y, s, s);
      if (!numbers) return;
      ctx.globalAlpha = 1;
      ctx.fillStyle = off ? maskText : fg;
      ctx.fillText(off && v !== null ? "0" : number(v, 2), x + s / 2, y + s / 2 + 1);
    }));
    ctx.globalAlpha = 1;
  }

  /** Put the cursor on (r, c) and say what that cell holds. */
  move(r, c) {
    this.cursor = [r, c];
    if (!this.g || !this.data) return;
    const { cw, gutter, top } = this.g;
    this.box.setAttribute("x", gutter + c * cw);
    this.box.setAttribute("y", top + r * cw);
    const { tokens, values, name } = this.data;
    this.readout.textContent =
      `${TITLES[name](quoted(tokens[r]), quoted(tokens[c]))} = ${number(values[r][c], 4)} · Enter or click: how it was computed`;
  }

  key(e) {
    const { n } = this.g ?? { n: 0 };
    const [r, c] = this.cursor;
    const moves = { ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1],
      Home: [r, 0], End: [r, n - 1], PageUp: [0, c], PageDown: [n - 1, c] };
    if (moves[e.key]) {
      const [nr, nc] = moves[e.key].map((i) => Math.max(0, Math.min(n - 1, i)));
      this.move(nr, nc);
      e.preventDefault();
    } else if (e.key === "Enter" || e.key === " ") {
      this.onOpen(r, c, this.canvas);
      e.preventDefault();
    }
  }

  toggleTable(show) {
    this.tableBox.hidden = !show;
    this.tableBox.replaceChildren(...(show && this.data ? [mapTable(this.data)] : []));
  }
}
