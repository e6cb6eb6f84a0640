// "flash": FlashAttention tile by tile, from engine.flash_attend on the causal head. Left: the n × n
// map as tiles, the current tile showing its scores S (−∞ where the causal mask blocks), tiles wholly
// above the diagonal marked "skipped". Right: each query row's running max m, sum ℓ and output Z as
// they stand after the current tile (taken from the latest tile that covered the row).
// Text sizes are set here (stage units, ≥ 20) so every number stays readable at 1280 × 720.
import { TYPE } from "../lib/type.js";
import { number, vector } from "../lib/format.js";
import { svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { registerWidget } from "./widgets.js";

// TABLE: the HTML table's numbers, a shade over TYPE.dense (its scale rounds 25 units under 20 CSS px).
const TEXT = TYPE.label, SMALL = TYPE.dense, TABLE = TYPE.dense + 1;
// Stage units: room for the row labels and the slanted column labels; a cell is wide enough for a
// score such as "−0.16" at SMALL with room on both sides, and need not be square.
const OX = 120, OY = 96, MAX_CW = 96, MAX_CH = 80, MAP_SHARE = 0.54;

function stateAfter(data, upto) {
  const rows = data.tokens.map(() => null);
  data.tiles.slice(0, upto + 1).forEach((t, k) => {
    for (let r = t.rows[0]; r < t.rows[1]; r++) {
      const i = r - t.rows[0];
      rows[r] = { m: t.m[i], l: t.l[i], o: t.o[i], fresh: k === upto };
    }
  });
  return rows;
}

function sized(el, px) { el.style.fontSize = `${px}px`; return el; }

function drawMap(d, cur, room) {
  const ox = OX, oy = OY;
  const cw = Math.min(MAX_CW, (room.w - ox - 10) / d.n), ch = Math.min(MAX_CH, (room.h - oy - 10) / d.n);
  const W = ox + d.n * cw + 10, H = oy + d.n * ch + 10;
  const s = svg("svg", { class: "flash", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": d.final ? "all tiles done" : `tile ${d.current + 1} of ${d.tiles.length}` });
  d.tokens.forEach((tok, i) => {
    sized(svg("text", { class: "flash-axis", x: ox - 10, y: oy + (i + 0.5) * ch, "text-anchor": "end",
      "dominant-baseline": "central" }, s), TEXT).textContent = tok;
    const cx = ox + (i + 0.5) * cw;
    sized(svg("text", { class: "flash-axis", x: cx, y: oy - 14, "text-anchor": "start",
      transform: `rotate(-40 ${cx} ${oy - 14})` }, s), TEXT).textContent = tok;
  });
  const rect = (t, cls) => svg("rect", { class: cls, x: ox + t.cols[0] * cw, y: oy + t.rows[0] * ch,
    width: (t.cols[1] - t.cols[0]) * cw, height: (t.rows[1] - t.rows[0]) * ch, rx: 6 }, s);
  d.tiles.forEach((t, k) => {
    rect(t, `flash-tile ${d.final || k < d.current ? "done" : k === d.current && !d.show_skip ? "current" : "todo"}`);
  });
  for (const t of d.skipped || []) {
    const r = rect(t, `flash-tile skipped${d.show_skip ? " current" : ""}`);
    r.style.fillOpacity = "0.06";
    if (!d.show_skip) r.style.strokeDasharray = "10 8";
    const x = ox + ((t.cols[0] + t.cols[1]) / 2) * cw, y = oy + ((t.rows[0] + t.rows[1]) / 2) * ch;
    ["skipped:", "all keys", "in the future"].forEach((line, k) => {
      sized(svg("text", { class: "flash-axis", x, y: y + (k - 1) * 30, "text-anchor": "middle",
        "dominant-baseline": "central" }, s), TEXT).textContent = line;
    });
  }
  if (!d.final && !d.show_skip) {
    if (cur.s.some((row) => row.includes(null))) maskHatch();
    cur.s.forEach((row, i) => row.forEach((v, j) => {
      // a masked score: the one masked look, the hatch under a greyed "−∞" (talk.css .cell.masked)
      if (v === null) svg("rect", { class: "flash-masked", x: ox + (cur.cols[0] + j) * cw + 3,
        y: oy + (cur.rows[0] + i) * ch + 3, width: cw - 6, height: ch - 6, rx: 4 }, s);
      const t = svg("text", { class: "flash-s", x: ox + (cur.cols[0] + j + 0.5) * cw,
        y: oy + (cur.rows[0] + i + 0.5) * ch, "text-anchor": "middle", "dominant-baseline": "central" }, s);
      sized(t, SMALL).textContent = v === null ? "−∞" : number(v, 2);
      if (v === null) t.classList.add("masked"); // --mask-text, ≥ 4.5:1 on the hatch in both themes
    }));
  }
  return s;
}

function heading(d, cur) {
  if (d.final) return `all ${d.tiles.length} tiles done: Z from the tiles vs the pipeline's Z`;
  if (d.show_skip) return "the tile above the diagonal is never computed: every key in it is in the future";
  return `tile ${d.current + 1} of ${d.tiles.length}: S = Q·Kᵀ/√d_k, query rows ${cur.rows[0] + 1}–${cur.rows[1]}, `
    + `keys ${cur.cols[0] + 1}–${cur.cols[1]}`;
}

// The running table at SMALL (a dense table of numbers), Z to two decimals, so it fits beside the map;
// the final one sets each row's Z beside its largest difference from the pipeline's Z.
function drawTable(d) {
  const table = document.createElement("table");
  table.className = "flash-table";
  sized(table, TABLE);
  const diffs = d.final && d.row_diff && d.row_diff.length === d.tokens.length;
  const cols = d.final ? ["token", "Z from tiles", diffs ? "|Z − pipeline's Z|" : "pipeline's Z"]
    : ["token", "running m", "running ℓ", "running Z"];
  const tr = table.createTHead().insertRow();
  for (const c of cols) { const th = document.createElement("th"); th.textContent = c; tr.appendChild(sized(th, TABLE)); }
  const body = table.createTBody();
  const rows = stateAfter(d, d.final ? d.tiles.length - 1 : d.current);
  const vec = (v) => vector(v, 2);
  d.tokens.forEach((tok, r) => {
    const row = body.insertRow();
    const st = rows[r];
    row.className = st && st.fresh && !d.final && !d.show_skip ? "fresh" : "";
    const cells = d.final ? [tok, vec(st.o), diffs ? d.row_diff[r] : vec(d.exact[r])]
      : [tok, st ? number(st.m, 3) : "−∞", st ? number(st.l, 3) : "0", st ? vec(st.o) : "—"];
    cells.forEach((text) => { row.insertCell().textContent = text; });
  });
  return table;
}

registerWidget("flash", (root, widget) => {
  const d = widget.data;
  const cur = d.tiles[d.current];
  root.replaceChildren();
  root.appendChild(drawMap(d, cur, { w: widget.box.w * MAP_SHARE, h: widget.box.h }));
  const panel = document.createElement("div");
  panel.className = "flash-panel";
  const head = sized(document.createElement("h3"), 26);
  head.textContent = heading(d, cur);
  panel.append(head, drawTable(d));
  if (!d.final) {
    const p = sized(document.createElement("p"), TABLE);
    p.className = "flash-note";
    p.textContent = d.show_skip
      ? "Causal attention skips it outright: no scores, no exp, no memory traffic. Roughly half the "
        + "tiles of a long causal map are skipped this way."
      : `this tile:\nm̃ = rowmax S = ${vector(cur.m_tilde, 2)}\nℓ̃ = rowsum exp(S − m̃)\n  = ${vector(cur.l_tilde, 2)}`;
    p.style.whiteSpace = "pre-line";
    panel.appendChild(p);
  }
  root.appendChild(panel);
});
