// "scaling": dividing the scores by √d_k (frames/kit/mechanisms.py counts them from the engine's
// map). Left, every score counted on one histogram axis: the raw scores on top, the scaled ones
// below on the same bins. Right, one row's softmax. From "raw" to "scaled" a copy of the raw
// histogram travels down and squeezes towards 0 by 1/√d_k (the cause), the scaled counts rise where
// it lands, and the row's weights flatten (each bar shrinks or grows to its new weight; a dashed
// outline keeps the old one). Masked keys: hatched track, greyed "0".
import { number } from "../lib/format.js";
import { label, reducedMotion, surface, svg } from "./dom.js";
import { boxAt, focusable, hatch, leave, morph, PHASE, previousStage, unitRect } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

function geometry(d, W, H) {
  const histW = Math.round(W * 0.6), lo = d.edges[0], hi = d.edges[d.edges.length - 1];
  const x = (v) => 20 + ((v - lo) / (hi - lo || 1)) * (histW - 40);
  const rowH = (H - 150) / 2, peak = Math.max(1, ...d.raw_counts, ...d.scaled_counts);
  // `peaks` "each": every histogram to its own tallest bin (the raw one would lie flat otherwise).
  const own = d.peaks === "each" ? [Math.max(1, ...d.raw_counts), Math.max(1, ...d.scaled_counts)] : [peak, peak];
  return { W, H, x, histW, base: [56 + rowH, 110 + 2 * rowH], barMax: rowH - 20, peaks: own,
    wx: histW + 60, wTop: 70, wRow: (H - 90) / d.labels.length };
}

/** One histogram row: bars placed by transforms (so a copy can travel and squeeze), at `row`. */
function drawCounts(grp, d, g, counts, row) {
  return counts.map((c, i) => {
    const x0 = g.x(d.edges[i]), x1 = g.x(d.edges[i + 1]);
    return place(unitRect(grp, { class: "mech-bar" }), boxAt(x0 + 1, g.base[row], Math.max(x1 - x0 - 2, 1),
      -(g.barMax * c) / g.peaks[row]));
  });
}

const place = (el, transform) => { el.style.transform = transform; return el; };

function drawHistogram(root, d, g, stage) {
  const grp = svg("g", { class: "mech-hist kind-scores" }, root);
  label(grp, d.raw_label, { class: "mech-title", x: 20, y: 36 });
  const scaledLabel = label(grp, d.scaled_label, { class: "mech-title", x: 20, y: g.base[0] + 54 });
  morph(scaledLabel, null, { opacity: stage === "scaled" ? 1 : 0 });
  for (const y of g.base) svg("line", { class: "mech-axis", x1: 20, x2: g.histW - 20, y1: y, y2: y }, grp);
  for (const t of d.ticks) {
    label(grp, number(t, 0), { class: "mech-tick", x: g.x(t), y: g.base[1] + 34, "text-anchor": "middle" });
    svg("line", { class: `mech-grid${t === 0 ? " zero" : ""}`, x1: g.x(t), x2: g.x(t), y1: 50, y2: g.base[1] }, grp);
  }
  drawCounts(svg("g", { class: "mech-raw" }, grp), d, g, d.raw_counts, 0);
  const scaled = svg("g", { class: "mech-scaled" }, grp), y = g.base[1];
  if (stage === "scaled") drawCounts(scaled, d, g, d.scaled_counts, 1);
  morph(scaled, null, { transform: `translate(0px, ${y}px) scale(1, 1) translate(0px, ${-y}px)` });
  const divide = label(grp, `÷ ${number(d.divisor, 1)}`, { class: "mech-sign", x: g.histW * 0.55, y: g.base[0] + 130 });
  morph(divide, null, { opacity: stage === "scaled" ? 1 : 0 });
  return { grp, scaled, scaledLabel, divide };
}

/** The raw histogram's copy travels to the second row, squeezed about 0 by 1/√d_k; then the scaled
 * counts rise from their axis. */
function squeeze(d, g, parts) {
  const ghost = svg("g", { class: "mech-ghost" }, parts.grp);
  drawCounts(ghost, d, g, d.raw_counts, 0);
  const x0 = g.x(0), dy = g.base[1] - g.base[0];
  leave(ghost, { transform: `translate(${x0}px, 0px) scale(1, 1) translate(${-x0}px, 0px)`, opacity: 0.8 },
    { transform: `translate(${x0}px, ${dy}px) scale(${1 / d.divisor}, 1) translate(${-x0}px, 0px)`, opacity: 0 },
    { duration: PHASE * 1.5 });
  const y = g.base[1];
  morph(parts.scaled, { transform: `translate(0px, ${y}px) scale(1, 0) translate(0px, ${-y}px)` },
    { transform: `translate(0px, ${y}px) scale(1, 1) translate(0px, ${-y}px)` }, { delay: PHASE, duration: PHASE });
  for (const el of [parts.scaledLabel, parts.divide]) morph(el, { opacity: 0 }, { opacity: 1 }, { duration: PHASE });
}

const MIN_OUTLINE = 0.005;  // a weight whose "before" outline is drawn (thinner would not show)

function weightState(d, g, i, stage) {
  const w = (stage === "raw" ? d.raw_weights : d.scaled_weights)[i], y = g.wTop + i * g.wRow;
  const trackX = g.wx + 130, trackW = g.W - trackX - 100;
  return { bar: { transform: boxAt(trackX, y + g.wRow * 0.2, w * trackW, g.wRow * 0.6) },
    text: d.masked[i] ? "0" : number(w, 2), textAt: { transform: `translate(${trackX + trackW + 12}px, ${y + g.wRow / 2}px)` },
    trackX, trackW, y };
}

function drawWeights(root, d, g, stage, was) {
  const grp = svg("g", { class: "mech-weights kind-weights" }, root), nums = [];
  label(grp, d.row_title, { class: "mech-title", x: g.wx, y: 36 });
  d.labels.forEach((tok, i) => {
    const s = weightState(d, g, i, stage), p = was ? weightState(d, g, i, was) : null, cy = s.y + g.wRow / 2;
    label(grp, tok, { class: "mech-token", x: s.trackX - 14, y: cy, "text-anchor": "end", "dominant-baseline": "central" });
    svg("rect", { class: "mech-track", x: s.trackX, y: s.y + g.wRow * 0.2, width: s.trackW, height: g.wRow * 0.6, rx: 4 }, grp);
    if (d.masked[i]) hatch(grp, s.trackX, s.y + g.wRow * 0.2, s.trackW, g.wRow * 0.6, 12);
    // The old weight's outline, where there is one to see (a near-zero width with a non-scaling
    // stroke is a near-singular transform, which Chromium's painter takes seconds to stroke).
    if (stage === "scaled" && d.raw_weights[i] >= MIN_OUTLINE) {
      const before = weightState(d, g, i, "raw");
      morph(unitRect(grp, { class: "mech-before" }), p && { ...before.bar, opacity: 0 }, { ...before.bar, opacity: 1 });
    }
    morph(unitRect(grp, { class: "mech-bar" }), p?.bar, s.bar);
    const t = label(grp, s.text, { class: `mech-value${d.masked[i] ? " zero" : ""}`, "dominant-baseline": "central" });
    focusable(t, `${tok}: weight ${stage === "raw" ? "before" : "after"} ÷ √d_k = ${s.text}`);
    if (p && p.text !== s.text) leave(label(grp, p.text, { class: "mech-value", "dominant-baseline": "central" }), p.textAt, p.textAt);
    morph(t, p && p.text !== s.text ? { ...s.textAt, opacity: 0 } : null, s.textAt);
    nums.push(t);
  });
  return nums;
}

function render(el, widget) {
  const d = widget.data, W = widget.box.w, H = widget.box.h, stage = d.stage;
  const prev = previousStage(el, JSON.stringify([d.edges, d.raw_counts, d.labels]), stage);
  el.replaceChildren();
  const g = geometry(d, W, H), root = surface(el, W, H), moving = prev && !reducedMotion(el);
  root.classList.add("mech-scaling");
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", `${d.raw_label}; ${stage === "scaled" ? d.scaled_label : "not yet scaled"}`);
  const parts = drawHistogram(root, d, g, stage);
  if (moving && stage === "scaled") squeeze(d, g, parts);
  const nums = drawWeights(root, d, g, stage, moving ? prev : null);
  setRoving(nums, 0);
  rovingLine(root, () => nums);
}

registerWidget("scaling", (el, widget) => render(el, widget));
