// "gqa": grouped-query attention as wiring. One layer's query heads (amber) in a row; under them
// the key/value heads they share (a teal K and a purple V each); a wire from every query head to
// the K/V head its group reads (the frame's `groups`, the engine's rule on the file's head counts).
// Stage "cache" adds the KV-cache bars, per token: plain multi-head (a K and a V per query head)
// and grouped; "mla" adds MLA's share of its own plain cache (DeepSeek-V3.2).
// Stage "groups" keeps, below, plain multi-head's K/V (one per query head) for reference.
// Motion shows the cause (VISUAL.md §3): on "groups" copies of plain multi-head's K/V rise into the
// shared ones and merge, then the wires appear; on "cache" the grouped
// bar starts as long as the plain one and shrinks by the group size; on "mla" the MLA bar shrinks
// on from the grouped length. Transform and opacity only; reduced motion draws the end state;
// stepping back draws the earlier stage without motion.
import { label, reducedMotion, svg } from "./dom.js";
import { focusable, PHASE, stagedSurface } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const EASE = "ease-in-out", STAGES = ["groups", "cache", "mla"];
const GUTTER = 250, Q_Y = 64, Q_H = 76, KV_Y = 290, KV_H = 80, KV_HALF = 104;
const PLAIN_Y = 470, PLAIN_H = 64, BARS_Y = 470, BAR_H = 42, BAR_GAP = 58, BAR_X = 330, BAR_W = 760;

function heads(root, d, W) {
  const slot = (W - GUTTER) / d.heads, qw = slot - 20;
  const qx = (h) => GUTTER + h * slot + 10;  // left edge of query head h
  const members = (g) => d.groups.map((x, h) => [x, h]).filter(([x]) => x === g).map(([, h]) => h);
  const kvc = (g) => { const m = members(g); return (qx(m[0]) + qx(m[m.length - 1]) + qw) / 2; };
  return { slot, qw, qx, members, kvc };
}

function box(parent, x, y, w, h, cls, name) {
  const g = svg("g", { class: "gqa-box" }, parent);
  svg("rect", { class: `gqa-head ${cls}`, x, y, width: w, height: h, rx: 10 }, g);
  label(g, name, { x: x + w / 2, y: y + h / 2 + 10, "text-anchor": "middle", class: "gqa-head-name" });
  return g;
}

function drawWiring(root, d, W, stops) {
  const L = heads(root, d, W);
  label(root, `${d.heads} query heads`, { x: 0, y: Q_Y + Q_H / 2 + 10, class: "gqa-label" });
  label(root, `${d.kv_heads} K/V heads`, { x: 0, y: KV_Y + KV_H / 2 + 10, class: "gqa-label" });
  const wires = svg("g", { class: "gqa-wires" }, root);
  const kv = svg("g", { class: "gqa-kv" }, root);
  for (let g = 0; g < d.kv_heads; g++) {
    const c = kvc(L, g);
    box(kv, c - KV_HALF, KV_Y, KV_HALF, KV_H, "key", `K${g}`);
    box(kv, c, KV_Y, KV_HALF, KV_H, "value", `V${g}`);
    const m = L.members(g);
    label(kv, `serves q${m[0]}–q${m[m.length - 1]}`, { x: c, y: KV_Y + KV_H + 36, "text-anchor": "middle", class: "gqa-note" });
  }
  const qs = [];
  for (let h = 0; h < d.heads; h++) {
    const x = L.qx(h), g = d.groups[h], c = kvc(L, g), from = x + L.qw / 2;
    svg("path", { class: "gqa-wire", d: `M ${from} ${Q_Y + Q_H} C ${from} ${(Q_Y + Q_H + KV_Y) / 2}, ${c} ${(Q_Y + Q_H + KV_Y) / 2}, ${c} ${KV_Y}` }, wires);
    const q = box(root, x, Q_Y, L.qw, Q_H, "query", `q${h}`);
    stops.push(focusable(q, `query head ${h} reads key/value head ${g} (head ${h} of ${d.heads}, groups of ${d.heads / d.kv_heads})`));
    qs.push(q);
  }
  return { L, wires, kv, qs };
}

const kvc = (L, g) => L.kvc(g);

/** Plain multi-head's key/value heads, one under every query head: what the grouping shares out. */
function drawPlain(root, d, L, stops) {
  label(root, "plain: one each", { x: 0, y: PLAIN_Y + PLAIN_H / 2 + 10, class: "gqa-note" });
  return Array.from({ length: d.heads }, (_, h) => {
    const g = svg("g", { class: "gqa-plain" }, root);
    svg("rect", { class: "gqa-ghost", x: L.qx(h), y: PLAIN_Y, width: L.qw, height: PLAIN_H, rx: 10 }, g);
    label(g, `K/V${h}`, { x: L.qx(h) + L.qw / 2, y: PLAIN_Y + PLAIN_H / 2 + 9, "text-anchor": "middle", class: "gqa-note" });
    stops.push(focusable(g, `plain multi-head would compute key/value head ${h} for query head ${h} alone`));
    return { x: L.qx(h) };
  });
}

function drawBars(root, d, stops) {
  if (d.bars.length) label(root, d.unit, { x: 0, y: BARS_Y - 20, class: "gqa-unit" });
  return d.bars.map((b, i) => {
    const y = BARS_Y + i * BAR_GAP, w = Math.max(BAR_W * b.value, 3);
    label(root, b.label, { x: BAR_X - 16, y: y + BAR_H / 2 + 9, "text-anchor": "end", class: "gqa-note gqa-bar-label" });
    if (i === 0) svg("rect", { class: "gqa-track", x: BAR_X, y, width: BAR_W, height: BAR_H, rx: 6 }, root);
    const bar = svg("rect", { class: `gqa-bar${i > 0 ? " grouped" : ""}`, x: BAR_X, y, width: w, height: BAR_H, rx: 6,
      "data-share": b.value }, root);
    Object.assign(bar.style, { transformBox: "fill-box", transformOrigin: "0 50%" });
    const t = label(root, b.text, { x: BAR_X + w + 16, y: y + BAR_H / 2 + 9, class: "mech-value gqa-value" });
    stops.push(focusable(t, `${b.label}: ${b.text} = ${b.formula}`));
    return { bar, t, w };
  });
}

function render(el, w) {
  const d = w.data, W = w.box.w;
  const { root, before } = stagedSurface(el, w);
  const stops = [];
  const wiring = drawWiring(root, d, W, stops);
  const plain = d.stage === "groups" ? drawPlain(root, d, wiring.L, stops) : [];
  const bars = drawBars(root, d, stops);
  setRoving(stops, 0);
  rovingLine(root, () => stops);
  if (reducedMotion(el) || (before !== null && STAGES.indexOf(before) >= STAGES.indexOf(d.stage))) return;  // forward only
  const fade = (e, delay, duration = 400) => e.animate([{ opacity: 0 }, { opacity: 1 }], { duration, delay, easing: EASE, fill: "backwards" });
  if (d.stage === "groups") {  // copies of plain multi-head's K/V rise into the shared ones and merge
    const L = wiring.L;
    plain.forEach(({ x }, h) => {
      const to = kvc(L, d.groups[h]) - KV_HALF;
      const ghost = svg("rect", { class: "gqa-ghost", x, y: PLAIN_Y, width: L.qw, height: PLAIN_H, rx: 10, "aria-hidden": "true" }, root);
      Object.assign(ghost.style, { transformBox: "fill-box", transformOrigin: "0 0" });
      const a = ghost.animate([{ transform: "none", opacity: 1 }, { transform: "none", opacity: 1, offset: 0.25 },
        { transform: `translate(${to - x}px, ${KV_Y - PLAIN_Y}px) scale(${(2 * KV_HALF) / L.qw}, ${KV_H / PLAIN_H})`, opacity: 0 }],
      { duration: PHASE + 500, easing: EASE, fill: "forwards" });
      a.finished.then(() => ghost.remove(), () => ghost.remove());
    });
    fade(wiring.kv, PHASE);
    fade(wiring.wires, PHASE + 300);
    return;
  }
  if (d.stage === "cache" && bars.length > 1) {  // the grouped bar starts at the plain length and shrinks
    if (before !== "mla") { fade(bars[0].bar, 0, 300); fade(bars[0].t, 0, 300); }
    const [plain, grouped] = bars;
    grouped.bar.animate([{ transform: `scaleX(${plain.w / grouped.w})` }, { transform: "scaleX(1)" }],
      { duration: PHASE, delay: 350, easing: EASE, fill: "backwards" });
    fade(grouped.t, 350 + PHASE, 300);
    return;
  }
  if (d.stage === "mla" && bars.length > 2) {  // MLA's bar shrinks on from the grouped length
    const [, grouped, mla] = bars;
    mla.bar.animate([{ transform: `scaleX(${grouped.w / mla.w})` }, { transform: "scaleX(1)" }],
      { duration: PHASE, easing: EASE, fill: "backwards" });
    fade(mla.t, PHASE, 300);
  }
}

registerWidget("gqa", render);
