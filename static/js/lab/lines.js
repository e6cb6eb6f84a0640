// The head view: every token twice, readers on the left and the tokens they read on the right, with
// a line from each reader to each token it reads, as strong as the weight (the strongest reads of
// each row; lines on a canvas, so 64 tokens redraw at typing speed). Hover or focus a reader and
// only its lines stay lit, and its strongest reads are written out (numbers from the answer).
import { number } from "../lib/format.js";
import { svg } from "../views/dom.js";
import { rovingLine, setRoving } from "../views/roving.js";
import { fitted, textWidth, themeValue } from "./map.js";
import { quoted, shown } from "./table.js";

// Each column is as wide as its longest token measured in the font it is drawn in (20 px), so no
// token is ever cut by the box; the lines get what is left, at least MIN_GAP. When the box is too
// narrow for that, the columns shrink and a longer token ends in "…" (its full text in its name and
// in the readout).
const ROW = 30, SIZE = 20, MIN_GAP = 48, MAX_GAP = 420, FAINT = 0.02, PER_READER = 12; // the strongest reads drawn
const HINT = "Point at a token on the left to see what it reads.";

/** [weight, key] of a row's strongest reads (at most PER_READER, none under FAINT), strongest first. */
function strongest(row) {
  return row.map((w, j) => [w ?? 0, j]).filter(([w]) => w >= FAINT).sort((a, b) => b[0] - a[0]).slice(0, PER_READER);
}

export class LinesView {
  constructor({ stage, svgEl, canvas, readout }) {
    Object.assign(this, { stage, svg: svgEl, canvas, readout });
    this.data = null;
    this.focused = null;
    this.shape = "";
    const pick = (e) => {
      const t = e.target.closest?.(".reader");
      if (t) this.focus(Number(t.dataset.i));
    };
    svgEl.addEventListener("pointerover", pick);
    svgEl.addEventListener("focusin", pick);
    svgEl.addEventListener("pointerleave", () => { if (!svgEl.contains(document.activeElement)) this.focus(null); });
    svgEl.addEventListener("focusout", (e) => { if (!svgEl.contains(e.relatedTarget)) this.focus(null); });
    rovingLine(svgEl, () => this.readers.map((t) => t.parentNode)); // one Tab stop, arrows move
    this.readers = [];
  }

  /** {tokens, weights (n × n)}, drawn `width` px wide. */
  render(data, width) {
    this.data = data;
    const n = data.tokens.length;
    this.mono ??= getComputedStyle(this.stage).fontFamily || "monospace"; // lab.css: the stage is in --mono
    const longest = Math.max(...data.tokens.map((t) => textWidth(shown(t), SIZE, this.mono)), 10);
    const colW = Math.min(Math.ceil((longest + 24) / 8) * 8, Math.max(80, Math.floor((width - MIN_GAP - 4) / 2)));
    const gap = Math.max(MIN_GAP, Math.min(MAX_GAP, width - 2 * colW - 4));
    const g = { n, colW, gap, full: 2 * colW + gap, height: n * ROW + 12 };
    const shape = JSON.stringify(g);
    if (shape !== this.shape) this.build(g);
    this.shape = shape;
    const room = colW - 20;
    data.tokens.map((t) => fitted(shown(t), room, this.mono, SIZE)).forEach((t, i) => {
      if (this.readers[i].textContent !== t) this.readers[i].textContent = t;
      if (this.reads[i].textContent !== t) this.reads[i].textContent = t;
      this.readers[i].parentNode.setAttribute("aria-label", `${quoted(data.tokens[i])} (token ${i}): show what it reads`);
    });
    this.focus(this.focused !== null && this.focused < n ? this.focused : null);
  }

  build(g) {
    this.g = g;
    const { n, colW, full, height } = g;
    Object.assign(this.stage.style, { width: `${full}px`, height: `${height}px` });
    for (const [k, v] of Object.entries({ viewBox: `0 0 ${full} ${height}`, width: full, height })) this.svg.setAttribute(k, v);
    const dpr = window.devicePixelRatio || 1;
    Object.assign(this.canvas, { width: Math.round(full * dpr), height: Math.round(height * dpr) });
    Object.assign(this.canvas.style, { width: `${full}px`, height: `${height}px` });
    this.svg.replaceChildren();
    this.readers = [];
    this.reads = [];
    for (let i = 0; i < n; i++) {
      const reader = svg("g", { class: "reader", tabindex: i === 0 ? 0 : -1, role: "button", "data-i": i }, this.svg);
      svg("rect", { x: 2, y: this.y(i) - ROW / 2 + 2, width: colW - 4, height: ROW - 4, rx: 6 }, reader);
      this.readers.push(svg("text", { x: colW - 10, y: this.y(i), "text-anchor": "end", "dominant-baseline": "central" },
        reader));
      this.reads.push(svg("text", { class: "read", x: colW + g.gap + 10, y: this.y(i), "dominant-baseline": "central",
        "data-j": i }, this.svg));
    }
    setRoving(this.readers.map((t) => t.parentNode), 0);
  }

  y(i) { return 6 + i * ROW + ROW / 2; }

  /** The lines: all of them, or (a reader focused) its own lit and the rest faint. */
  paint() {
    const { colW, gap, full, height } = this.g;
    const weights = themeValue(this.stage, "--weights");
    const ctx = this.canvas.getContext("2d");
    const dpr = this.canvas.width / full;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, full, height);
    ctx.lineCap = "round";
    this.data.weights.forEach((row, i) => {
      const mine = this.focused === i;
      for (const [w, j] of strongest(row)) {
        ctx.globalAlpha = this.focused === null ? 0.1 + 0.9 * w : mine ? 0.25 + 0.75 * w : 0.05;
        ctx.strokeStyle = weights; // the map's blue; the token we follow is the strong lines, not a hue
        ctx.lineWidth = 0.8 + 5 * w;
        ctx.beginPath();
        ctx.moveTo(colW - 2, this.y(i));
        ctx.lineTo(colW + gap + 2, this.y(j));
        ctx.stroke();
      }
    });
    ctx.globalAlpha = 1;
  }

  focus(i) {
    this.focused = i;
    this.readers.forEach((t, k) => t.parentNode.classList.toggle("on", k === i));
    const order = i === null || !this.data ? [] : strongest(this.data.weights[i]).slice(0, 4);
    this.reads.forEach((t, j) => t.classList.toggle("on", order.some(([, k]) => k === j)));
    if (this.data) this.paint();
    this.readout.textContent = i === null || !this.data ? HINT
      : `${quoted(this.data.tokens[i])} reads ${order.map(([w, j]) => `${quoted(this.data.tokens[j])} ${number(w, 2)}`).join(" · ")}`;
  }
}
