// The chosen head's map in the talk's matrix look (views/matrix.js: cells tinted by their colour
// role on the same scale, signed maps diverging, masked cells hatched, token labels on both axes),
// sized to its box. The cells are painted on a canvas (64 × 64 cells redraw in a millisecond or two,
// where as many SVG nodes would stall typing); the labels, the numbers, the cursor and a tour's
// highlight are SVG above it. Text is never squeezed: a number is written in its cell only when it
// fits at the lab's cell size with 4 px to spare on every side (else the cursor's tip shows it on
// hover or focus), and when the cells are smaller than a label's line, only every k-th token is
// labelled (the cursor's row and column always are), each label at full size and its full text
// (a label longer than the gutter ends in "…", its full text in the readout). The canvas takes the
// keyboard focus: arrows move the cursor cell, Enter or a click opens its derivation, and the cell
// under the cursor is written out (and announced). A change of head, layer or map crossfades the old
// cells into the new (opacity; none with reduced motion). The numbers are also a <table>.
import { number } from "../lib/format.js";
import { reducedMotion, svg } from "../views/dom.js";
import { mapTable, quoted, shown } from "./table.js";

// CSS px: labels, numbers, their padding, a row label's line, the space between slanted labels
const LABEL = 20, NUMBER = 20, PAD = 4, LINE = 24, SLANTED = 20;
const MIN_CELL = 5, TOUCH_CELL = 20, MAX_CELL = 72, MAX_GUTTER = 200, ANGLE = 60, SLANT = (ANGLE * Math.PI) / 180;

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

let measurer = null;
/** The width of `text` in px in the monospace font at `size` px (a canvas measures; no layout). */
const styleReads = new WeakMap(); // element → Map of "theme|--property" → its value there

/** The value of the custom property `name` on `el`, read once per theme (colours.css sets them per
 * data-theme): a style read after the lab's views were written would make the browser compute the
 * page's style there and then, on every answer. */
export function themeValue(el, name) {
  const key = `${document.documentElement.dataset.theme ?? ""}|${name}`;
  if (!styleReads.has(el)) styleReads.set(el, new Map());
  const known = styleReads.get(el);
  if (!known.has(key)) known.set(key, getComputedStyle(el).getPropertyValue(name).trim());
  return known.get(key);
}

export function textWidth(text, size, family) {
  measurer ??= document.createElement("canvas").getContext("2d");
  measurer.font = `${size}px ${family}`;
  return measurer.measureText(text).width;
}

/** `text`, cut with "…" to at most `room` px at `size` px (its full text is in the readout). */
export function fitted(text, room, family, size = LABEL) {
  if (textWidth(text, size, family) <= room) return text;
  let t = text;
  while (t.length > 1 && textWidth(`${t}…`, size, family) > room) t = t.slice(0, -1);
  return `${t}…`;
}

/** The number a cell shows, at the map's precision: masked cells −∞ (or 0 for a weight). */
function cellText(v, off, name) {
  if (v === null) return "−∞";
  if (off) return "0";
  return number(v, name === "weights" ? 2 : 1);
}

export class MapView {
  /** `onOpen(row, col, element)` asks for a cell's derivation. */
  constructor({ stage, svgEl, canvas, ghost, readout, tableBox }, onOpen) {
    Object.assign(this, { stage, svg: svgEl, canvas, ghost, readout, tableBox, onOpen });
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
   * weight whose score there is null is the mask's zero), which (the head, layer and map it is of: a
   * change of it, the sentence the same, crossfades), look ({row?, col?}: a tour's highlight)}, drawn in at most `width` × `height` px. */
  render(data, width, height) {
    const before = this.data;
    this.data = data;
    this.mono ??= getComputedStyle(this.stage).fontFamily || "monospace"; // lab.css: the stage is in --mono
    const n = Math.max(data.tokens.length, 1);
    const longest = Math.max(...data.tokens.map((t) => textWidth(shown(t), LABEL, this.mono)), 10);
    const gutter = Math.ceil(Math.min(MAX_GUTTER, longest + 14) / 8) * 8;
    const slant = Math.min(MAX_GUTTER, longest) * Math.sin(SLANT) + LABEL;
    const right = Math.ceil(Math.min(MAX_GUTTER, longest) * Math.cos(SLANT)) + 8; // the last label's slant
    const fit = Math.min((width - gutter - right) / n, (height - slant - 16) / n);
    // On a phone the cells stay big enough to tap; the map scrolls.
    const cw = Math.max(window.innerWidth < 700 ? TOUCH_CELL : MIN_CELL, Math.min(MAX_CELL, Math.floor(fit)));
    const g = { n, cw, gutter, right, top: Math.ceil(slant + 10),
      rowStride: Math.ceil(LINE / cw), colStride: Math.ceil(SLANTED / (cw * Math.sin(SLANT))) };
    const shape = JSON.stringify(g);
    // A new head, layer or map of the same sentence crossfades; typing (a new sentence) never does.
    const sameText = before && before.tokens.join("\u0000") === data.tokens.join("\u0000");
    const fade = sameText && this.g && before.which !== data.which && shape === this.shape && !reducedMotion(this.stage);
    if (fade) this.keepGhost();
    if (shape !== this.shape) this.build(g);
    this.shape = shape;
    this.label(data.tokens);
    this.paint();
    this.write();
    const { look } = data;
    const at = look ? [look.row ?? this.cursor[0], look.col ?? this.cursor[1]] : this.cursor;
    this.move(...at.map((i) => Math.min(i, n - 1)));
    this.highlight(look);
    if (fade) this.crossfade();
    if (!this.tableBox.hidden) this.tableBox.replaceChildren(mapTable(data));
  }

  build(g) {
    this.g = g;
    const { n, cw, gutter, right, top } = g;
    const width = gutter + n * cw + right, height = top + n * cw + 4;
    Object.assign(this.stage.style, { width: `${width}px`, height: `${height}px` });
    for (const [k, v] of Object.entries({ viewBox: `0 0 ${width} ${height}`, width, height })) this.svg.setAttribute(k, v);
    const place = { left: `${gutter}px`, top: `${top}px`, width: `${n * cw}px`, height: `${n * cw}px` };
    Object.assign(this.canvas.style, place);
    Object.assign(this.ghost.style, place);
    const dpr = window.devicePixelRatio || 1;
    for (const c of [this.canvas, this.ghost]) {
      c.width = Math.round(n * cw * dpr);
      c.height = Math.round(n * cw * dpr);
    }
    this.canvas.dataset.cell = String(cw);
    this.svg.replaceChildren();
    this.rows = [];
    this.cols = [];
    for (let i = 0; i < n; i++) {
      this.rows.push(svg("text", { class: "axis-label row token", x: gutter - 8, y: top + i * cw + cw / 2,
        "text-anchor": "end", "dominant-baseline": "central", "data-r": i }, this.svg));
      this.cols.push(svg("text", { class: "axis-label col token", x: 0, y: 0, "data-c": i,
        transform: `translate(${gutter + i * cw + cw / 2 + LABEL * 0.3},${top - 6}) rotate(-${ANGLE})` }, this.svg));
    }
    this.numbers = svg("g", { class: "cell-numbers" }, this.svg);
    this.looks = svg("g", { class: "map-look" }, this.svg);
    this.box = svg("rect", { class: "map-cursor", width: cw, height: cw, rx: Math.min(5, cw / 5) }, this.svg);
    this.tip = svg("g", { class: "map-tip" }, this.svg);
    this.tipBox = svg("rect", { rx: 6, height: LABEL + 2 * PAD + 4 }, this.tip);
    this.tipText = svg("text", { "dominant-baseline": "central" }, this.tip);
  }

  /** The labels: every `stride`-th token's (and the cursor's), each fitted to the gutter. */
  label(tokens) {
    const room = Math.min(MAX_GUTTER, this.g.gutter) - 12;
    tokens.map(shown).forEach((t, i) => {
      const text = fitted(t, room, this.mono);
      if (this.rows[i].textContent !== text) this.rows[i].textContent = text;
      if (this.cols[i].textContent !== text) this.cols[i].textContent = text;
    });
    this.thin();
  }

  /** Hide labels that would crowd their neighbours; the cursor's row and column keep theirs. */
  thin() {
    const { rowStride, colStride } = this.g;
    const [cr, cc] = this.cursor;
    this.rows.forEach((t, i) => {
      const show = i === cr || (i % rowStride === 0 && Math.abs(i - cr) >= rowStride);
      t.classList.toggle("thinned", !show);
      t.classList.toggle("at", i === cr);
    });
    this.cols.forEach((t, i) => {
      const show = i === cc || (i % colStride === 0 && Math.abs(i - cc) >= colStride);
      t.classList.toggle("thinned", !show);
      t.classList.toggle("at", i === cc);
    });
  }

  masked(v, r, c) {
    const { kind, masked } = this.data;
    return v === null || (kind === "weights" && masked?.[r]?.[c] === null);
  }

  /** The numbers in their cells, when every one fits with PAD px to spare (SVG text, at most a few
   * hundred: only maps whose cells are large enough get them). */
  write() {
    const { n, cw, gutter, top } = this.g;
    const { values, name } = this.data;
    if (NUMBER * 1.25 + 2 * PAD > cw - 2) { // too small for any number: nothing to measure
      this.svg.classList.remove("with-numbers");
      this.numbers.replaceChildren();
      return;
    }
    const texts = values.map((row, r) => row.map((v, c) => cellText(v, this.masked(v, r, c), name)));
    const widest = Math.max(...texts.flat().map((t) => textWidth(t, NUMBER, this.mono)));
    const fits = widest + 2 * PAD <= cw - 2 && NUMBER * 1.25 + 2 * PAD <= cw - 2; // the font's line, ascent to descent
    this.svg.classList.toggle("with-numbers", fits);
    if (!fits) { this.numbers.replaceChildren(); return; }
    if (this.numbers.childElementCount !== n * n) {
      this.numbers.replaceChildren();
      for (let r = 0; r < n; r++) {
        for (let c = 0; c < n; c++) {
          svg("text", { class: "cell-number", x: gutter + c * cw + cw / 2, y: top + r * cw + cw / 2,
            "text-anchor": "middle", "dominant-baseline": "central", "data-r": r, "data-c": c }, this.numbers);
        }
      }
    }
    const cells = this.numbers.children;
    texts.forEach((row, r) => row.forEach((t, c) => {
      const el = cells[r * n + c];
      if (el.textContent !== t) el.textContent = t;
      el.classList.toggle("off", this.masked(values[r][c], r, c));
    }));
  }

  paint() {
    const { n, cw } = this.g;
    const { values, kind } = this.data;
    const colour = (v) => themeValue(this.stage, v);
    const role = kind === "weights" ? "--weights" : "--scores";
    const [tint, negative, grid, maskLine, maskBg] = [role, "--negative", "--grid", "--mask-line", "--mask-bg"].map(colour);
    // The talk's scale (views/matrix.js shadeOf, colours.css): floor to the role's strongest tint.
    const [floor, top, negTop] = ["--tint-floor", `${role}-top`, "--negative-top"].map((v) => parseFloat(colour(v)));
    const most = absMax(values);
    const ctx = this.canvas.getContext("2d");
    const hatch = hatchPattern(ctx, maskLine, maskBg);
    const dpr = this.canvas.width / (n * cw);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, n * cw, n * cw);
    values.forEach((row, r) => row.forEach((v, c) => {
      const x = c * cw + 0.5, y = r * cw + 0.5, s = cw - 1;
      if (this.masked(v, r, c)) {
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
    }));
    ctx.globalAlpha = 1;
  }

  /** The cells as they were, on the ghost canvas above the new ones, about to fade. */
  keepGhost() {
    const ctx = this.ghost.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.ghost.width, this.ghost.height);
    ctx.drawImage(this.canvas, 0, 0);
  }

  /** The old head's cells fade out over the new head's (opacity only; the end state is the new map). */
  crossfade() {
    this.fading?.cancel();
    this.fading = this.ghost.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 420, easing: "ease-out" });
    this.fading.finished.then(() => { this.fading = null; }, () => {});
  }

  /** A tour's highlight: the row, the column or the cell it points at, outlined. */
  highlight(look) {
    this.looks.replaceChildren();
    if (!look) return;
    const { n, cw, gutter, top } = this.g;
    const { row, col } = look;
    const rect = (x, y, w, h) => svg("rect", { x: x - 2, y: y - 2, width: w + 4, height: h + 4, rx: 6 }, this.looks);
    if (row !== undefined && row < n) rect(gutter, top + row * cw, n * cw, cw);
    if (col !== undefined && col < n) rect(gutter + col * cw, top, cw, n * cw);
    this.stage.dataset.look = JSON.stringify(look);
  }

  /** Put the cursor on (r, c) and say what that cell holds (the tip shows its number). */
  move(r, c) {
    this.cursor = [r, c];
    if (!this.g || !this.data) return;
    const { n, cw, gutter, top, right } = this.g;
    this.box.setAttribute("x", gutter + c * cw);
    this.box.setAttribute("y", top + r * cw);
    this.thin();
    const { tokens, values, name } = this.data;
    const text = cellText(values[r][c], this.masked(values[r][c], r, c), name);
    this.tipText.textContent = text;
    const w = textWidth(text, NUMBER, this.mono) + 2 * PAD + 8;
    const h = LABEL + 2 * PAD + 4;
    const x = Math.max(0, Math.min(gutter + n * cw + right - w, gutter + c * cw + cw / 2 - w / 2));
    const y = r === 0 ? top + cw + 4 : top + r * cw - h - 4;
    this.tipBox.setAttribute("x", x);
    this.tipBox.setAttribute("y", y);
    this.tipBox.setAttribute("width", w);
    this.tipText.setAttribute("x", x + PAD + 4);
    this.tipText.setAttribute("y", y + h / 2);
    this.readout.textContent =
      `${TITLES[name](quoted(tokens[r]), quoted(tokens[c]))} = ${number(values[r][c], 4)} · Enter: its sum`;
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
