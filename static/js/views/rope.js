// "rope": rotary position embedding as arrows on dials, one row per coordinate pair (fast, middle,
// slow), one column per position or placement. A pair's two coordinates are drawn as a 2-D arrow;
// RoPE turns it by position × θᵢ (the frame's angles, computed by the engine). Stage "turn": one unit
// arrow per pair, turned to each position of the sentence; "offsets": a query (amber) fixed, its key
// (teal) moved back to other distances, the angle between them (a shaded wedge) and the score changing; "places":
// both moved along by the same amount, the angle between them and the score staying.
// Motion shows the cause (VISUAL.md §3): on "turn" each arrow spins from angle 0 by its position ×
// θᵢ (fast pairs spin, slow ones barely move); on "offsets" each key turns back from the query's
// position to its own; on "places" both arrows of a dial turn together by the extra angle. The
// arrows are drawn at their end angles; only a rotation (transform) animates, so the reduced-motion
// end state is the same drawing. Stepping back draws the earlier stage without motion. Every arrow and score can be focused: its name says the numbers.
import { number } from "../lib/format.js";
import { label, reducedMotion, svg } from "./dom.js";
import { focusable, PHASE, stagedSurface } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out", TAU = 2 * Math.PI, STAGES = ["turn", "offsets", "places"];
const GUTTER = 270, TITLE = 44, HEAD = 78, SCORE = 96;
const deg = (rad) => (rad * 180) / Math.PI;
const rate = (t) => number(t, Math.max(3, 2 - Math.floor(Math.log10(t))));
const wrap = (a) => Math.atan2(Math.sin(a), Math.cos(a));  // into (−π, π]

function geometry(d, W, H) {
  const scored = d.stage !== "turn";
  const top = TITLE + HEAD, bottom = H - (scored ? SCORE : 8);
  const cw = (W - GUTTER) / d.columns.length, rh = (bottom - top) / d.pairs.length;
  const r = Math.min(cw, rh) / 2 - 10;
  const at = (i, c) => ({ x: GUTTER + (c + 0.5) * cw, y: top + (i + 0.5) * rh });
  return { scored, top, bottom, cw, rh, r, at };
}

/** An arrow from the dial's centre, `len` long, drawn pointing at `angle` (radians, counter-clockwise). */
function arrow(parent, { x, y }, angle, len, cls) {
  const place = svg("g", { transform: `translate(${x} ${y}) rotate(${-deg(angle)})` }, parent);
  const turn = svg("g", { class: `rope-arrow ${cls}`, "data-angle": angle }, place);
  svg("line", { x1: 0, y1: 0, x2: Math.max(len - 14, 0), y2: 0 }, turn);
  svg("path", { d: `M ${len} 0 L ${len - 18} -9 L ${len - 18} 9 Z` }, turn);
  turn.style.transform = "rotate(0rad)";
  return turn;
}

/** The angle between two directions (a to b, the short way) as a shaded wedge of radius `r`. */
function between(parent, { x, y }, a, b, r) {
  const d = wrap(b - a), end = a + d;
  const p = (t) => `${x + r * Math.cos(t)} ${y - r * Math.sin(t)}`;
  return svg("path", { class: "rope-between", d: `M ${x} ${y} L ${p(a)} A ${r} ${r} 0 0 ${d > 0 ? 0 : 1} ${p(end)} Z` }, parent);
}

function dial(root, c, r, zero) {
  svg("circle", { class: "rope-dial", cx: c.x, cy: c.y, r }, root);
  if (zero) svg("line", { class: "rope-zero", x1: c.x, y1: c.y, x2: c.x + r, y2: c.y }, root);
  svg("circle", { class: "rope-hub", cx: c.x, cy: c.y, r: 4 }, root);
}

function spin(el, fromRad, delay = 0) {
  if (Math.abs(fromRad) < 1e-9) return;
  el.animate([{ transform: `rotate(${fromRad}rad)` }, { transform: "rotate(0rad)" }],
    { duration: PHASE + 100, delay, easing: EASE, fill: "backwards" });
}

function heads(root, d, g) {
  d.columns.forEach((col, c) => {
    const x = g.at(0, c).x;
    if (d.stage === "turn") {
      label(root, String(col.q_pos), { x, y: TITLE + 26, "text-anchor": "middle", class: "rope-index axis-label" });
      label(root, col.label, { x, y: TITLE + 62, "text-anchor": "middle", class: "rope-token" });
    } else {
      label(root, col.label, { x, y: TITLE + 30, "text-anchor": "middle", class: "rope-col" });
      const where = d.stage === "offsets" ? `q at ${col.q_pos.toLocaleString("en")}, ` : "";
      label(root, `${where}k at ${col.k_pos.toLocaleString("en")}`,
        { x, y: TITLE + 64, "text-anchor": "middle", class: "rope-sub" });
    }
  });
  d.pairs.forEach((p, i) => {
    const y = g.at(i, 0).y;
    label(root, `pair ${p.index}: ${p.name}`, { x: 0, y: y - 8, class: "rope-pair" });
    const t = label(root, `θ = ${rate(p.theta)}`, { x: 0, y: y + 26, class: "rope-rate" });
    focusable(t, `θ of pair ${p.index} = ${d.base}^(−${2 * p.index}/${d.width}) = ${rate(p.theta)} radians per position`);
  });
}

function drawPair(root, d, g, col, i, move, stops) {
  const p = d.pairs[i], at = g.at(i, d.columns.indexOf(col));
  dial(root, at, g.r, d.stage === "turn");
  if (d.stage === "turn") {
    const a = Math.atan2(col.q[i][1], col.q[i][0]) + col.q_angles[i];
    const arr = arrow(root, at, a, g.r - 4, "query");
    stops.push(focusable(arr, `pair ${p.index} at position ${col.q_pos} (“${col.label}”): turned by ${col.q_pos} × θ = ${number(col.q_angles[i], 2)} radians`));
    if (move) spin(arr, col.q_angles[i]);
    return;
  }
  const [q, k] = [col.q[i], col.k[i]];
  const len = (v) => Math.hypot(v[0], v[1]);
  const big = Math.max(len(q), len(k), 1e-12);
  const qa = Math.atan2(q[1], q[0]) + col.q_angles[i], ka = Math.atan2(k[1], k[0]) + col.k_angles[i];
  const arc = svg("g", { class: "rope-arc" }, root);
  between(arc, at, qa, ka, g.r * 0.62);
  const qArr = arrow(root, at, qa, 24 + (g.r - 28) * (len(q) / big), "query");
  const kArr = arrow(root, at, ka, 24 + (g.r - 28) * (len(k) / big), "key");
  stops.push(focusable(qArr, `pair ${p.index} of q at ${col.q_pos}: turned by ${col.q_pos} × θ = ${number(col.q_angles[i], 2)} radians`));
  stops.push(focusable(kArr, `pair ${p.index} of k at ${col.k_pos}: turned by ${col.k_pos} × θ = ${number(col.k_angles[i], 2)} radians; ${number(deg(wrap(ka - qa)), 0)}° from q`));
  if (!move) return;
  if (d.stage === "offsets") spin(kArr, -(col.q_angles[i] - col.k_angles[i]));  // the key turns back to its own place
  else {  // both turn together by the extra angle of the shift (the part under one turn)
    const extra = (col.q_pos - d.columns[0].q_pos) * p.theta % TAU;
    for (const part of [qArr, kArr]) spin(part, extra);
  }
  arc.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: PHASE + 100, fill: "backwards" });
}

/** The column's score q·k: its number, and a bar from the column's middle (left when negative), as
 * long as the score against the largest of the step, so equal scores draw equal bars. */
function drawScore(root, d, g, c, H, move, stops) {
  const col = d.columns[c], x = g.at(0, c).x, y = H - 42;
  const most = Math.max(...d.columns.map((k) => Math.abs(k.score)), 1e-12), half = g.cw / 2 - 18;
  const w = Math.max((half * Math.abs(col.score)) / most, 2);
  const bar = svg("rect", { class: "rope-score-bar", x: col.score < 0 ? x - w : x, y: H - 30, width: w, height: 24, rx: 4,
    "data-score": col.score }, root);
  svg("line", { class: "rope-score-zero", x1: x, y1: H - 36, x2: x, y2: H }, root);
  const t = label(root, `q·k ${number(col.score, d.stage === "places" ? 2 : 1)}`,
    { x, y, "text-anchor": "middle", class: "mech-value rope-score", "data-score": col.score });
  stops.push(focusable(t, `score ${col.label}: R(${col.q_pos})q · R(${col.k_pos})k, all ${d.width} numbers, = ${number(col.score, 4)}`));
  if (move) for (const e of [t, bar]) e.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: PHASE + 100, fill: "backwards" });
}

function render(el, w) {
  const d = w.data, W = w.box.w, H = w.box.h;
  const { root, before } = stagedSurface(el, w, "rope-title");
  root.classList.add("rope");
  const g = geometry(d, W, H);
  heads(root, d, g);
  if (d.marked !== null && d.marked !== undefined && d.stage === "offsets") {
    const x = GUTTER + d.marked * g.cw + 4;
    svg("rect", { class: "rope-marked", x, y: TITLE + 2, width: g.cw - 8, height: H - TITLE - 4, rx: 12 }, root);
  }
  const move = (before === null || STAGES.indexOf(before) < STAGES.indexOf(d.stage)) && !reducedMotion(el);  // forward only
  const stops = [];
  d.columns.forEach((col, c) => {
    d.pairs.forEach((_, i) => drawPair(root, d, g, col, i, move, stops));
    if (g.scored) drawScore(root, d, g, c, H, move, stops);
  });
  setRoving(stops, 0);
  rovingLine(root, () => stops);
}

registerWidget("rope", render);
