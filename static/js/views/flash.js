// "flash": FlashAttention tile by tile, from engine.flash_attend. Left: the n × n map as tiles,
// the current tile showing its scores S. Right: each query row's running max m, sum ℓ and output O
// as they stand after the current tile (taken from the latest tile that covered the row).
import { number, vector } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

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

registerWidget("flash", (root, widget) => {
  const d = widget.data;
  const cur = d.tiles[d.current];
  root.replaceChildren();
  const side = 480, cell = side / d.n, ox = 110, oy = 60;
  const s = svg("svg", { class: "flash", viewBox: `0 0 ${ox + side + 20} ${oy + side + 10}`,
    width: ox + side + 20, height: oy + side + 10, role: "img",
    "aria-label": `tile ${d.current + 1} of ${d.tiles.length}: query rows ${cur.rows[0] + 1}–${cur.rows[1]}, key rows ${cur.cols[0] + 1}–${cur.cols[1]}` });
  d.tokens.forEach((tok, i) => {
    svg("text", { class: "flash-axis", x: ox - 10, y: oy + (i + 0.5) * cell, "text-anchor": "end",
      "dominant-baseline": "central" }, s).textContent = tok;
    svg("text", { class: "flash-axis", x: ox + (i + 0.5) * cell, y: oy - 12, "text-anchor": "middle",
      transform: `rotate(-35 ${ox + (i + 0.5) * cell} ${oy - 12})` }, s).textContent = tok;
  });
  d.tiles.forEach((t, k) => {
    const state = d.final || k < d.current ? "done" : k === d.current ? "current" : "todo";
    svg("rect", { class: `flash-tile ${state}`, x: ox + t.cols[0] * cell, y: oy + t.rows[0] * cell,
      width: (t.cols[1] - t.cols[0]) * cell, height: (t.rows[1] - t.rows[0]) * cell, rx: 6 }, s);
  });
  if (!d.final) {
    cur.s.forEach((row, i) => row.forEach((v, j) => {
      svg("text", { class: "flash-s", x: ox + (cur.cols[0] + j + 0.5) * cell, y: oy + (cur.rows[0] + i + 0.5) * cell,
        "text-anchor": "middle", "dominant-baseline": "central" }, s).textContent = number(v, 2);
    }));
  }
  root.appendChild(s);

  const panel = document.createElement("div");
  panel.className = "flash-panel";
  const head = document.createElement("h3");
  head.textContent = d.final
    ? `all ${d.tiles.length} tiles done: O (tiles) vs exact attention`
    : `tile ${d.current + 1} of ${d.tiles.length}: S = Q·Kᵀ/√d_k for rows ${cur.rows[0] + 1}–${cur.rows[1]}, keys ${cur.cols[0] + 1}–${cur.cols[1]}`;
  panel.appendChild(head);
  const table = document.createElement("table");
  table.className = "flash-table";
  const cols = d.final ? ["token", "O from tiles", "exact"] : ["token", "running m", "running ℓ", "running O"];
  const tr = table.createTHead().insertRow();
  for (const c of cols) { const th = document.createElement("th"); th.textContent = c; tr.appendChild(th); }
  const body = table.createTBody();
  const rows = stateAfter(d, d.final ? d.tiles.length - 1 : d.current);
  const vec = (v) => vector(v, 3);
  d.tokens.forEach((tok, r) => {
    const row = body.insertRow();
    const st = rows[r];
    row.className = st && st.fresh && !d.final ? "fresh" : "";
    const cells = d.final ? [tok, vec(st.o), vec(d.exact[r])]
      : [tok, st ? number(st.m, 3) : "−∞", st ? number(st.l, 3) : "0", st ? vec(st.o) : "—"];
    cells.forEach((text) => { row.insertCell().textContent = text; });
  });
  panel.appendChild(table);
  if (!d.final) {
    const p = document.createElement("p");
    p.className = "flash-note";
    p.textContent = `this tile: m̃ = rowmax S = ${vector(cur.m_tilde, 2)}, `
      + `ℓ̃ = rowsum exp(S − m̃) = ${vector(cur.l_tilde, 2)}`;
    panel.appendChild(p);
  }
  root.appendChild(panel);
});
