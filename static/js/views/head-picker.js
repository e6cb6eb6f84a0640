// "head-picker": switch between attention heads (click a head's button, or Tab to it and press Enter)
// and see that head's map of weights A over the same sentence, with one computed sentence on what it
// does. Every map is computed by the frame builder (engine.multi_head); the view only picks one.
import { TYPE } from "../lib/type.js";
import { rovingLine, setRoving } from "./roving.js";
import { number } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

const TEXT = TYPE.label;

function sized(el, px) { el.style.fontSize = `${px}px`; return el; }

/** The map in words, for screen readers: each query token's row of weights. */
function mapLabel(title, tokens, weights) {
  const rows = weights.map((row, i) => `${tokens[i]}: ${row.map((w) => number(w, 2)).join(", ")}`);
  return `Attention weights of ${title}, one row per query token. ${rows.join("; ")}`;
}

function drawMap(tokens, weights, focus, side, title) {
  const n = tokens.length, ox = 130, oy = 110, cell = side / n;
  const s = svg("svg", { class: "head-map", viewBox: `0 0 ${ox + side + 10} ${oy + side + 10}`,
    width: ox + side + 10, height: oy + side + 10, role: "img", "aria-label": mapLabel(title, tokens, weights) });
  tokens.forEach((tok, i) => {
    const row = svg("text", { x: ox - 12, y: oy + (i + 0.5) * cell, "text-anchor": "end", "dominant-baseline": "central" }, s);
    sized(row, TEXT).textContent = tok;
    row.style.fill = "var(--fg)";
    const cx = ox + (i + 0.5) * cell;
    const col = svg("text", { x: cx, y: oy - 14, transform: `rotate(-40 ${cx} ${oy - 14})` }, s);
    sized(col, TEXT).textContent = tok;
    col.style.fill = "var(--fg)";
  });
  weights.forEach((row, i) => row.forEach((w, j) => {
    const r = svg("rect", { x: ox + j * cell + 2, y: oy + i * cell + 2, width: cell - 4, height: cell - 4, rx: 6 }, s);
    // the talk's scale (colours.css): a weight of 1 at the role's strongest tint, ≥ 3:1 on the page
    Object.assign(r.style, { fill: "var(--c)",
      fillOpacity: `calc(var(--tint-floor) + (var(--top) - var(--tint-floor)) * ${Math.min(1, Math.max(0, w))})` });
    const t = svg("text", { x: ox + (j + 0.5) * cell, y: oy + (i + 0.5) * cell, "text-anchor": "middle",
      "dominant-baseline": "central" }, s);
    sized(t, TYPE.label).textContent = number(w, 2);
    Object.assign(t.style, { fill: "var(--fg)", fontFamily: "var(--mono)", opacity: w === 0 ? "0.35" : "1" });
  }));
  if (focus !== null && focus !== undefined) {
    const f = svg("rect", { x: ox - 4, y: oy + focus * cell, width: side + 8, height: cell, rx: 8 }, s);
    Object.assign(f.style, { fill: "none", stroke: "var(--select)", strokeWidth: "4" });
  }
  return s;
}

function select(root, data, k, side) {
  const buttons = [...root.querySelectorAll(".picker-token")];
  buttons.forEach((b, i) => {
    b.classList.toggle("selected", i === k);
    b.setAttribute("aria-pressed", String(i === k));
  });
  setRoving(buttons, k);
  const head = data.heads[k];
  const map = drawMap(data.tokens, head.weights, data.focus, side, head.title);
  root.querySelector(".head-body").replaceChildren(...(data.show_summary === false ? [map] : [map, summary(head)]));
}

function summary(head) {
  const p = sized(document.createElement("p"), 28);
  p.textContent = head.summary;
  Object.assign(p.style, { flex: "1", margin: "24px 0 0", lineHeight: "1.45" });
  return p;
}

registerWidget("head-picker", (root, widget) => {
  const data = widget.data;
  const side = Math.min(widget.box.h - 200, 520);
  root.replaceChildren();
  Object.assign(root.style, { display: "flex", flexDirection: "column", gap: "10px" });
  const bar = document.createElement("div");
  bar.className = "picker-tokens";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Choose a head");
  data.heads.forEach((h, k) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "picker-token";
    b.textContent = h.title;
    b.addEventListener("click", () => select(root, data, k, side));
    bar.appendChild(b);
  });
  rovingLine(bar, () => [...bar.querySelectorAll(".picker-token")], (k) => select(root, data, k, side));
  const body = document.createElement("div");
  body.className = "head-body";
  Object.assign(body.style, { display: "flex", gap: "40px", alignItems: "flex-start", flex: "1", minHeight: "0" });
  body.setAttribute("aria-live", "polite");
  root.append(bar, body);
  select(root, data, data.selected, side);
});
