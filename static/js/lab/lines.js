// The head view: every token twice, readers on the left and the tokens they read on the right, with
// a line from each reader to each token it reads, as strong as the weight. Hover or focus a reader
// and only its lines stay lit, and its strongest reads are written out (numbers from the answer).
import { number } from "../lib/format.js";
import { svg } from "../views/dom.js";
import { quoted, shown } from "./map.js";

const ROW = 28, MIN_GAP = 120, MAX_GAP = 420, FAINT = 0.01;

export class LinesView {
  constructor(svgEl, readout) {
    this.svg = svgEl;
    this.readout = readout;
    this.data = null;
    this.focused = null;
    const pick = (e) => {
      const t = e.target.closest?.(".reader");
      if (t) this.focus(Number(t.dataset.i));
    };
    svgEl.addEventListener("pointerover", pick);
    svgEl.addEventListener("focusin", pick);
    svgEl.addEventListener("pointerleave", () => { if (!svgEl.contains(document.activeElement)) this.focus(null); });
    svgEl.addEventListener("focusout", (e) => { if (!svgEl.contains(e.relatedTarget)) this.focus(null); });
  }

  /** {tokens, weights (n × n)}, drawn `width` px wide. */
  render(data, width) {
    this.data = data;
    const n = data.tokens.length;
    const longest = Math.max(...data.tokens.map((t) => t.length), 1);
    const colW = Math.min(170, 20 + longest * 9.8);
    const gap = Math.max(MIN_GAP, Math.min(MAX_GAP, width - 2 * colW - 4));
    const x1 = colW, x2 = colW + gap, full = x2 + colW, height = n * ROW + 12;
    this.svg.replaceChildren();
    Object.entries({ viewBox: `0 0 ${full} ${height}`, width: full, height }).forEach(([k, v]) => this.svg.setAttribute(k, v));
    const y = (i) => 6 + i * ROW + ROW / 2;
    const lines = svg("g", { class: "lines" }, this.svg);
    data.weights.forEach((row, i) => row.forEach((w, j) => {
      if (w === null || w < FAINT) return;
      svg("line", { x1: x1 + 6, y1: y(i), x2: x2 - 6, y2: y(j), "data-i": i, "stroke-opacity": (0.1 + 0.9 * w).toFixed(3),
        "stroke-width": (0.8 + 5 * w).toFixed(2) }, lines);
    }));
    data.tokens.forEach((t, i) => {
      const reader = svg("g", { class: "reader", tabindex: 0, role: "button", "data-i": i,
        "aria-label": `${quoted(t)} (token ${i}): show what it reads` }, this.svg);
      svg("rect", { x: 2, y: y(i) - ROW / 2 + 2, width: colW - 4, height: ROW - 4, rx: 6 }, reader);
      const a = svg("text", { x: x1 - 4, y: y(i), "text-anchor": "end", "dominant-baseline": "central" }, reader);
      a.textContent = shown(t);
      const b = svg("text", { class: "read", x: x2 + 4, y: y(i), "dominant-baseline": "central", "data-j": i }, this.svg);
      b.textContent = shown(t);
    });
    this.focus(this.focused !== null && this.focused < n ? this.focused : null);
  }

  focus(i) {
    this.focused = i;
    this.svg.classList.toggle("focusing", i !== null);
    for (const el of this.svg.querySelectorAll(".lines line")) el.classList.toggle("on", Number(el.dataset.i) === i);
    for (const el of this.svg.querySelectorAll(".reader")) el.classList.toggle("on", Number(el.dataset.i) === i);
    if (i === null || !this.data) {
      this.readout.textContent = "Hover or focus a token on the left to see what it reads.";
      for (const el of this.svg.querySelectorAll(".read")) el.classList.remove("on");
      return;
    }
    const row = this.data.weights[i];
    const order = row.map((w, j) => [w ?? 0, j]).filter(([w]) => w > 0).sort((a, b) => b[0] - a[0]).slice(0, 4);
    for (const el of this.svg.querySelectorAll(".read")) {
      el.classList.toggle("on", order.some(([, j]) => j === Number(el.dataset.j)));
    }
    const reads = order.map(([w, j]) => `${quoted(this.data.tokens[j])} ${number(w, 2)}`).join(" · ");
    this.readout.textContent = `${quoted(this.data.tokens[i])} reads ${reads}`;
  }
}
