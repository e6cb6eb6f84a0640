// "concat": the heads' outputs Z_h (n × d_v each) as blocks side by side; slid together into one
// concatenation (n × h·d_v); then one product with W_O (h·d_v × d) back to the model's width: O,
// one token's row of it shown (the numbers from the engine's multi-head run, focusable).
// Motion (VISUAL.md §3): the blocks slide together; then W_O rises into place and the
// concatenation travels into O, whose numbers appear as it lands. A step loaded directly plays
// the phases up to its own stage; reduced motion draws the end state at once.
import { TYPE } from "../lib/type.js";
import { count, number } from "../lib/format.js";
import { reducedMotion, svg } from "./dom.js";
import { travel } from "./motion.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out", STAGES = ["heads", "concat", "product"];
const shape = (s) => `${count(s[0])} × ${count(s[1])}`;

function text(parent, content, attrs, size, style = {}) {
  const t = svg("text", attrs, parent);
  t.textContent = content;
  Object.assign(t.style, { fontSize: `${size}px`, fill: "var(--fg)", ...style });
  return t;
}

function geometry(box, d) {
  const h = d.blocks.length, gap = 28;
  const bw = Math.min(150, (box.w - 40 - (h - 1) * gap) / h);
  const apart = (box.w - h * bw - (h - 1) * gap) / 2, joined = (box.w - h * bw) / 2;
  return { bw, bh: 170, y: 70, apartX: (i) => apart + i * (bw + gap), joinedX: (i) => joined + i * bw,
    wo: { x: 60, y: 380, w: 240, h: 240 }, out: { x: 440, y: 450, w: box.w - 460, h: 100 } };
}

function drawBlocks(root, d, geo, stage) {
  const together = stage !== "heads";
  return d.blocks.map((b, i) => {
    const x = together ? geo.joinedX(i) : geo.apartX(i);
    const g = svg("g", { class: "concat-block" }, root);
    const r = svg("rect", { x, y: geo.y, width: geo.bw, height: geo.bh, rx: together ? 0 : 8 }, g);
    Object.assign(r.style, { fill: "var(--output)", fillOpacity: i % 2 ? "0.55" : "0.3", stroke: "var(--output)", strokeWidth: "2" });
    text(g, b.title, { x: x + geo.bw / 2, y: geo.y - 14, "text-anchor": "middle" }, TYPE.dense);
    text(g, shape(b.shape), { x: x + geo.bw / 2, y: geo.y + geo.bh / 2, "text-anchor": "middle", "dominant-baseline": "central" },
      TYPE.dense, { fontFamily: "var(--mono)" });
    g.setAttribute("aria-label", `${b.title}${b.job ? ` (${b.job})` : ""}: its output, ${shape(b.shape)}`);
    return { g, dx: geo.apartX(i) - geo.joinedX(i) };
  });
}

function drawConcatLabel(root, d, geo) {
  const g = svg("g", { class: "concat-label" }, root);
  text(g, `concatenated: ${shape(d.concat)}`, { x: geo.joinedX(0), y: geo.y + geo.bh + 44 }, TYPE.label, { fontWeight: "700" });
  return g;
}

function drawProduct(root, d, geo) {
  const { wo, out } = geo;
  const wg = svg("g", { class: "concat-wo" }, root);
  text(wg, "×", { x: wo.x - 34, y: wo.y + wo.h / 2, "dominant-baseline": "central" }, 40, { fill: "var(--muted)" });
  const r = svg("rect", { x: wo.x, y: wo.y, width: wo.w, height: wo.h, rx: 8 }, wg);
  Object.assign(r.style, { fill: "var(--weight)", fillOpacity: "0.3", stroke: "var(--weight)", strokeWidth: "2" });
  text(wg, "W_O", { x: wo.x + wo.w / 2, y: wo.y + wo.h / 2 - 20, "text-anchor": "middle" }, TYPE.label, { fontWeight: "700" });
  text(wg, shape(d.w_o), { x: wo.x + wo.w / 2, y: wo.y + wo.h / 2 + 20, "text-anchor": "middle" }, TYPE.dense,
    { fontFamily: "var(--mono)" });
  text(wg, "=", { x: wo.x + wo.w + 50, y: out.y + out.h / 2, "dominant-baseline": "central" }, 40, { fill: "var(--muted)" });
  const og = svg("g", { class: "concat-out" }, root);
  const o = svg("rect", { x: out.x, y: out.y, width: out.w, height: out.h, rx: 8 }, og);
  Object.assign(o.style, { fill: "var(--output)", fillOpacity: "0.45", stroke: "var(--output)", strokeWidth: "2" });
  text(og, `O = concatenated · W_O: ${shape(d.output)}`, { x: out.x, y: out.y - 16 }, TYPE.label, { fontWeight: "700" });
  text(og, `row of “${d.token}”:`, { x: out.x, y: out.y + out.h + 44 }, TYPE.dense);
  const values = [];
  d.values.forEach((v, k) => {
    const gapped = k === d.values.length - 1 && d.columns[k] > d.columns[k - 1] + 1;
    if (gapped) text(og, "…", { x: out.x + 210 + k * 130 - 30, y: out.y + out.h + 44 }, TYPE.dense);
    const t = text(og, number(v, 3), { x: out.x + 210 + k * 130 + (gapped ? 10 : 0), y: out.y + out.h + 44, class: "concat-value",
      "data-column": d.columns[k], role: "img", "aria-label": `O, row “${d.token}”, column ${count(d.columns[k])}: ${number(v, 3)}` },
    TYPE.dense, { fontFamily: "var(--mono)" });
    values.push(t);
  });
  values.forEach((t) => t.setAttribute("tabindex", "-1"));
  setRoving(values, 0);
  rovingLine(og, () => values);
  return { wg, og, values };
}

function render(el, w) {
  const d = w.data, box = w.box;
  const before = STAGES.indexOf(el.dataset.stage ?? ""), at = STAGES.indexOf(d.stage);
  el.dataset.stage = d.stage;
  const root = svg("svg", { class: "widget-svg concat", viewBox: `0 0 ${box.w} ${box.h}`, width: box.w, height: box.h,
    role: "group", "aria-label": `${d.blocks.length} head outputs, ${shape(d.blocks[0].shape)} each` +
      (at >= 1 ? `, concatenated ${shape(d.concat)}` : "") + (at >= 2 ? `, times W_O ${shape(d.w_o)} = O ${shape(d.output)}` : "") });
  el.replaceChildren(root);
  const geo = geometry(box, d);
  const blocks = drawBlocks(root, d, geo, d.stage);
  const label = at >= 1 ? drawConcatLabel(root, d, geo) : null;
  const product = at >= 2 ? drawProduct(root, d, geo) : null;
  if (reducedMotion(el) || before >= at) return;
  let t = 0;
  if (before < 1 && at >= 1) {  // the blocks slide together into one table
    for (const { g, dx } of blocks) g.animate([{ transform: `translateX(${dx}px)` }, { transform: "none" }],
      { duration: 600, easing: EASE, fill: "backwards" });
    label.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: 600, easing: EASE, fill: "backwards" });
    t = 900;
  }
  if (at >= 2) {  // W_O rises into place, the table travels through it into O
    product.wg.animate([{ opacity: 0, transform: "translateY(60px)" }, { opacity: 1, transform: "none" }],
      { duration: 500, delay: t, easing: EASE, fill: "backwards" });
    const from = { x: geo.joinedX(0), y: geo.y, w: geo.bw * d.blocks.length, h: geo.bh };
    travel(root, from, geo.out, "output", t + 500, { duration: 900 });
    product.og.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 400, delay: t + 1200, easing: EASE, fill: "backwards" });
  }
}

registerWidget("concat", render);
