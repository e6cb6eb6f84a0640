// "sizes": a model's sizes as proportional blocks, one row per quantity: its query heads as blocks
// as long as their width d_k, its key/value heads alike, the model width d as one bar, its layers as
// slabs. Every figure arrives from the frame (read from the model file or the cost model). Stage
// "file": the first model alone, where each figure was read under its bar; "compare": every model's bars. Rows of one unit (numbers, layers)
// share one scale: the longest bar of that unit drawn fills the width. Motion shows the cause (VISUAL.md §3): on "compare" the
// first model's bars shrink to the new, shared scale while the other model's bars grow in from
// the left. Transform and opacity only; reduced motion draws the end state.
import { label, reducedMotion, svg } from "./dom.js";
import { focusable, PHASE, stagedSurface } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out";
const GUTTER = 300, RIGHT_ROOM = 230, TOP = 52, BAR_H = 42, BAR_GAP = 10, TITLE_H = 40;

function bar(root, b, { x, y, scale, kind }) {
  const g = svg("g", { class: `sizes-bar ${kind}`, "data-count": b.count, "data-size": b.size }, root);
  const block = b.size * scale, gap = block >= 4 ? Math.max(1, Math.min(3, block / 5)) : 0;
  if (gap === 0) {
    svg("rect", { class: "sizes-block", x, y, width: Math.max(b.count * block, 2), height: BAR_H, rx: 3 }, g);
  } else {
    for (let i = 0; i < b.count; i++) {
      svg("rect", { class: "sizes-block", x: x + i * block + gap / 2, y, width: block - gap, height: BAR_H, rx: 3 }, g);
    }
  }
  Object.assign(g.style, { transformBox: "fill-box", transformOrigin: "0 50%" });
  return { g, w: Math.max(b.count * block, 2) };
}

function render(el, w) {
  const d = w.data, W = w.box.w, H = w.box.h;
  const { root, before } = stagedSurface(el, w, "sizes-title");
  const track = W - GUTTER - RIGHT_ROOM, rowH = (H - TOP) / d.rows.length;
  const stops = [], drawn = [];
  const total = (b) => b.count * b.size;
  const longest = (unit, bars) => Math.max(...d.rows.filter((r) => r.unit === unit).flatMap((r) => bars(r).map(total)));
  d.rows.forEach((row, r) => {
    const y0 = TOP + r * rowH;
    label(root, row.title, { x: 0, y: y0 + 30, class: "sizes-row-title" });
    const scale = track / longest(row.unit, (x) => x.bars);
    const fileScale = track / longest(row.unit, (x) => x.bars.slice(0, 1));
    row.bars.forEach((b, m) => {
      const y = y0 + TITLE_H + m * (BAR_H + BAR_GAP);
      label(root, d.models[m], { x: GUTTER - 16, y: y + BAR_H / 2 + 9, "text-anchor": "end", class: "sizes-model" });
      const drawnBar = bar(root, b, { x: GUTTER, y, scale, kind: row.kind });
      const t = label(root, b.text, { x: GUTTER + drawnBar.w + 14, y: y + BAR_H / 2 + 9, class: "mech-value sizes-value" });
      stops.push(focusable(t, `${row.title}, ${d.models[m]}: ${b.text}, read from ${b.source}`));
      drawn.push({ ...drawnBar, t, m, grow: m === 0 ? fileScale / scale : 0 });
    });
    if (row.bars.length === 1) {  // the file alone: where each figure was read, in the other model's place
      label(root, `read from ${row.bars[0].source}`, { x: GUTTER, y: y0 + TITLE_H + BAR_H + BAR_GAP + BAR_H / 2 + 9,
        class: "sizes-model sizes-source" });
    }
  });
  setRoving(stops, 0);
  rovingLine(root, () => stops);
  if (reducedMotion(el) || before === d.stage || d.stage !== "compare" || before !== "file") return;
  for (const { g, t, m, grow } of drawn) {  // the shared scale: the first model shrinks, the other grows in
    g.animate([{ transform: `scaleX(${m === 0 ? grow : 0})` }, { transform: "scaleX(1)" }],
      { duration: PHASE + 100, easing: EASE, fill: "backwards" });
    t.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: PHASE + 100, easing: EASE, fill: "backwards" });
  }
}

registerWidget("sizes", render);
