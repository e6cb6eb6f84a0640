// "head-picker": switch between attention heads (click a head's button, or Tab to it and press Enter)
// and see that head's map of weights A over the same sentence, with one computed sentence on what it
// does. Every map is computed by the frame builder (engine.multi_head); the view only picks one.
import { TYPE } from "../lib/type.js";
import { rovingLine, setRoving } from "./roving.js";
import { number } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

const TEXT = TYPE.label;
// Stage units: room for the row labels (left) and the slanted column labels (top); the largest cell.
// A cell's number keeps PAD clear of its cell's edge on each side (4 CSS px at 1280 × 720).
const OX = 130, OY = 110, MAX_CW = 110, MAX_CH = 90, INSET = 2, PAD = 6, MONO_EM = 0.62;

function sized(el, px) { el.style.fontSize = `${px}px`; return el; }

/** The map in words, for screen readers: each query token's row of weights. */
function mapLabel(title, tokens, weights) {
  const rows = weights.map((row, i) => `${tokens[i]}: ${row.map((w) => number(w, 2)).join(", ")}`);
  return `Attention weights of ${title}, one row per query token. ${rows.join("; ")}`;
}

/** Cells as wide and tall as the room allows (they need not be square), and the numbers' size: at
 * most TYPE.label, never under TYPE.dense, and PAD clear of the cell's edge. */
function cellsFor(n, room) {
  const cw = Math.min(MAX_CW, (room.w - OX - 10) / n), ch = Math.min(MAX_CH, (room.h - OY - 10) / n);
  const font = Math.min(TYPE.label, ch * 0.6, (cw - 2 * INSET - 2 * PAD) / (4 * MONO_EM));  // "0.00"
  return { cw, ch, font: Math.max(TYPE.dense, font) };
}

function drawMap(tokens, weights, focus, room, title) {
  const n = tokens.length, ox = OX, oy = OY, { cw, ch, font } = cellsFor(n, room);
  const W = ox + n * cw + 10, H = oy + n * ch + 10;
  const s = svg("svg", { class: "head-map", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": mapLabel(title, tokens, weights) });
  tokens.forEach((tok, i) => {
    const row = svg("text", { x: ox - 12, y: oy + (i + 0.5) * ch, "text-anchor": "end", "dominant-baseline": "central" }, s);
    sized(row, TEXT).textContent = tok;
    row.style.fill = "var(--fg)";
    const cx = ox + (i + 0.5) * cw;
    const col = svg("text", { x: cx, y: oy - 14, transform: `rotate(-40 ${cx} ${oy - 14})` }, s);
    sized(col, TEXT).textContent = tok;
    col.style.fill = "var(--fg)";
  });
  weights.forEach((row, i) => row.forEach((w, j) => {
    const r = svg("rect", { x: ox + j * cw + INSET, y: oy + i * ch + INSET, width: cw - 2 * INSET,
      height: ch - 2 * INSET, rx: 6 }, s);
    // the talk's scale (colours.css): a weight of 1 at the role's strongest tint, ≥ 3:1 on the page
    Object.assign(r.style, { fill: "var(--c)",
      fillOpacity: `calc(var(--tint-floor) + (var(--top) - var(--tint-floor)) * ${Math.min(1, Math.max(0, w))})` });
    const t = svg("text", { x: ox + (j + 0.5) * cw, y: oy + (i + 0.5) * ch, "text-anchor": "middle",
      "dominant-baseline": "central" }, s);
    sized(t, font).textContent = number(w, 2);
    Object.assign(t.style, { fill: "var(--fg)", fontFamily: "var(--mono)", opacity: w === 0 ? "0.35" : "1" });
  }));
  if (focus !== null && focus !== undefined) {
    const f = svg("rect", { x: ox - 4, y: oy + focus * ch, width: n * cw + 8, height: ch, rx: 8 }, s);
    Object.assign(f.style, { fill: "none", stroke: "var(--select)", strokeWidth: "4" });
  }
  return s;
}

function select(root, data, k, room) {
  const buttons = [...root.querySelectorAll(".picker-token")];
  buttons.forEach((b, i) => {
    b.classList.toggle("selected", i === k);
    b.setAttribute("aria-pressed", String(i === k));
  });
  setRoving(buttons, k);
  const head = data.heads[k];
  const map = drawMap(data.tokens, head.weights, data.focus, room, head.title);
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
  // The map's room: the box under the head buttons, beside the summary when there is one.
  const room = { w: data.show_summary === false ? widget.box.w : widget.box.w * 0.55, h: widget.box.h - 70 };
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
    b.addEventListener("click", () => select(root, data, k, room));
    bar.appendChild(b);
  });
  rovingLine(bar, () => [...bar.querySelectorAll(".picker-token")], (k) => select(root, data, k, room));
  const body = document.createElement("div");
  body.className = "head-body";
  Object.assign(body.style, { display: "flex", gap: "40px", alignItems: "flex-start", flex: "1", minHeight: "0" });
  body.setAttribute("aria-live", "polite");
  root.append(bar, body);
  select(root, data, data.selected, room);
});
