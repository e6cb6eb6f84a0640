// "head-maps": many heads as small maps of one sentence, each computed by the engine from its own
// weights. Named (data.named), each map gets the job its best measure looks for, that measure's
// score, and the cells the measure averages outlined: the name comes from those cells.
// Motion (VISUAL.md §3): each map fills in query row by query row, head after head (softmax is
// computed per row); naming outlines the measured cells first, then the name appears beside them.
// Colours only through the CSS custom properties; text sizes from lib/type.js.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { reducedMotion, svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out";
const LEFT = 100, TOP = 140, TITLE = 34, JOB = 40, GX = 44, GY = 10;

function text(parent, content, attrs, size, style = {}) {
  const t = svg("text", attrs, parent);
  t.textContent = content;
  Object.assign(t.style, { fontSize: `${size}px`, fill: "var(--fg)", ...style });
  return t;
}

/** Map size and origins: `columns` maps per row, token labels left of the first and above the top row.
 * A map fills its share of the box: its cells may be wider than tall (rows are what a projector lacks). */
function geometry(box, d) {
  const cols = Math.min(d.columns ?? 4, d.heads.length), rows = Math.ceil(d.heads.length / cols);
  // Room above the maps for the slanted column labels (-55°) under the title: long words need more.
  const longest = Math.max(...d.tokens.map((t) => t.length));
  const top = Math.max(TOP, 44 + TITLE + 6 + Math.ceil(0.55 * TYPE.dense * longest * Math.sin(tilt(d) * Math.PI / 180)));
  const wide = (box.w - LEFT - (cols - 1) * GX) / cols;
  const high = (box.h - top - rows * (TITLE + JOB) - (rows - 1) * GY) / rows;
  const side = { w: Math.min(wide, high * 1.8), h: high };
  const origin = (k) => ({ x: LEFT + (k % cols) * (side.w + GX), y: top + Math.floor(k / cols) * (side.h + TITLE + JOB + GY) });
  return { cols, side, origin };
}

/** How far the column labels turn from the horizontal, in degrees. */
const tilt = (d) => (d.labels === "upright" ? 90 : 55);

function mapLabel(d, head) {
  const rows = head.weights.map((row, i) => `${d.tokens[i]}: ${row.slice(0, i + 1).map((w) => number(w, 2)).join(", ")}`);
  const job = head.job ? `, ${head.job}: ${Math.round(100 * head.score)} % of its attention on the measured cells` : "";
  return `${head.title}${job}. Weights, one row per query token: ${rows.join("; ")}`;
}

function drawMap(g, d, head, at, side) {
  const n = d.tokens.length, cw = side.w / n, ch = side.h / n;
  const cells = [];
  head.weights.forEach((row, i) => row.forEach((w, j) => {
    const r = svg("rect", { x: at.x + j * cw + 1, y: at.y + i * ch + 1, width: cw - 2, height: ch - 2, rx: 3 }, g);
    const masked = j > i;
    // A masked cell: the one masked look of every view (.masked-map-cell: the hatch), never a blank.
    if (masked) r.classList.add("masked-map-cell");
    Object.assign(r.style, masked ? {}
      : { fill: "var(--weights)", fillOpacity: String(0.06 + 0.88 * w), transformBox: "fill-box", transformOrigin: "50% 50%" });
    if (!masked) cells.push({ r, i });
  }));
  const frame = svg("rect", { x: at.x, y: at.y, width: side.w, height: side.h, rx: 4 }, g);
  Object.assign(frame.style, { fill: "none", stroke: "var(--grid)", strokeWidth: "2" });
  return cells;
}

function tokenLabels(root, d, geo) {
  const { side, origin, cols } = geo, n = d.tokens.length;
  for (let k = 0; k < d.heads.length; k += cols) {
    const at = origin(k);
    d.tokens.forEach((tok, i) => text(root, tok, { x: at.x - 10, y: at.y + (i + 0.5) * side.h / n, "text-anchor": "end",
      "dominant-baseline": "central" }, TYPE.dense));
  }
  for (let k = 0; k < cols; k++) {
    const at = origin(k);
    d.tokens.forEach((tok, j) => {
      const x = at.x + (j + 0.5) * side.w / n, y = at.y - TITLE - 6;
      const upright = d.labels === "upright";  // centred on its column, reading upwards
      text(root, tok, { x: upright ? x + 0.35 * TYPE.dense : x, y, transform: `rotate(-${tilt(d)} ${upright ? x + 0.35 * TYPE.dense : x} ${y})` },
        TYPE.dense);
    });
  }
}

function grow(cells, delay) {
  for (const { r, i } of cells) {
    r.animate([{ opacity: 0, transform: "scale(.3)" }, { opacity: 1, transform: "none" }],
      { duration: 320, delay: delay + i * 40, easing: EASE, fill: "backwards" });
  }
}

function render(el, w) {
  const d = w.data, box = w.box;
  maskHatch(el.ownerDocument);
  const before = el.dataset.stage;
  el.dataset.stage = d.named ? "named" : "maps";
  const root = svg("svg", { class: "widget-svg head-maps", viewBox: `0 0 ${box.w} ${box.h}`, width: box.w, height: box.h,
    role: "group", "aria-label": `${d.title}: arrow keys move between the heads` });
  el.replaceChildren(root);
  text(root, d.title, { x: 0, y: 28 }, TYPE.label, { fontWeight: "700" });
  const geo = geometry(box, d);
  tokenLabels(root, d, geo);
  const still = reducedMotion(el), fresh = before === undefined;
  const maps = [];
  d.heads.forEach((head, k) => {
    const at = geo.origin(k);
    const g = svg("g", { class: "head-map", role: "img", "aria-label": mapLabel(d, head), "data-head": k }, root);
    text(g, head.title, { x: at.x, y: at.y - 10 }, TYPE.dense, { fill: "var(--muted)" });
    const cells = drawMap(g, d, head, at, geo.side);
    maps.push(g);
    if (!still && fresh) grow(cells, k * 90);
    if (!d.named) return;
    const cw = geo.side.w / d.tokens.length, ch = geo.side.h / d.tokens.length;
    const named = [];
    for (const [q, key] of head.targets) {
      const o = svg("rect", { x: at.x + key * cw + 1, y: at.y + q * ch + 1, width: cw - 2, height: ch - 2, rx: 3,
        class: "measured-cell" }, g);
      Object.assign(o.style, { fill: "none", stroke: "var(--fg)", strokeWidth: "3", transformBox: "fill-box", transformOrigin: "50% 50%" });
      named.push(o);
    }
    const job = text(g, head.job, { x: at.x, y: at.y + geo.side.h + 30, class: "head-job" }, TYPE.dense, { fontWeight: "700" });
    const score = text(g, `${Math.round(100 * head.score)} %`, { x: at.x + geo.side.w, y: at.y - 10, "text-anchor": "end",
      class: "head-score" }, TYPE.dense);
    if (still || before === "named") return;
    const start = (fresh ? 900 : 0) + k * 60;
    for (const o of named) o.animate([{ opacity: 0, transform: "scale(1.8)" }, { opacity: 1, transform: "none" }],
      { duration: 420, delay: start, easing: EASE, fill: "backwards" });
    for (const t of [job, score]) t.animate([{ opacity: 0, transform: "translateY(10px)" }, { opacity: 1, transform: "none" }],
      { duration: 360, delay: start + 420, easing: EASE, fill: "backwards" });
  });
  maps.forEach((g) => g.setAttribute("tabindex", "-1"));
  setRoving(maps, 0);
  rovingLine(root, () => maps);
}

registerWidget("head-maps", render);
