// "softmax": one row's softmax as a process, one stage per step (frames/kit/mechanisms.py computes
// every number from the engine): the scores as bars around zero → the row max subtracted (a dashed
// max line and every bar's end slide down by it) → e^x (the bars turn positive, the max exactly 1)
// → their sum (copies of the bars travel into one stacked bar) → each divided by it (the stack and
// every bar shrink by the same factor: the stack ends exactly on the line of 1; with `fit` "one",
// a step that shows only the weights, the line of 1 is the plot's top). A masked key is
// hatched with "−∞" and collapses to a greyed "0": e^−∞ adds nothing to the stack.
import { number } from "../lib/format.js";
import { label, reducedMotion, surface, svg } from "./dom.js";
import { boxAt, focusable, hatch, leave, morph, PHASE, previousStage, unitRect } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const STAGES = ["scores", "shift", "exp", "sum", "divide"];
const FORMULA = { scores: "s", shift: "s − max", exp: "e^(s − max)", sum: "Σ e^(s − max)",
  divide: "e^(s − max) / Σ" };
const VALUES = { scores: "scores", shift: "shifted", exp: "exps", sum: "exps", divide: "weights" };
const after = (stage, than) => STAGES.indexOf(stage) >= STAGES.indexOf(than);

const VALUE_ROOM = 44; // under a negative bar: its value label, above the keys' names

/** Where everything sits, in the widget's units: the bars' plot, the zero line, the stack. */
function geometry(d, W, H) {
  const top = 96, bottom = H - 86, zero = (top + bottom) / 2, left = 60, right = W - 300;
  const slot = (right - left) / d.labels.length;
  const finite = d.scores.filter((s) => s !== null), low = d.shifted.filter((s) => s !== null);
  const up = Math.max(0, ...finite), down = Math.max(0, ...finite.map((s) => -s), ...low.map((s) => -s));
  // The deepest bar stops a value label's height above the foot: its number sits under it, clear of the keys' names.
  const us = Math.min(up > 0 ? (zero - top) / up : Infinity, down > 0 ? (bottom - VALUE_ROOM - zero) / down : Infinity);
  // Once e^x makes every bar positive, the zero line slides down to the plot's foot (`base`).
  return { W, H, top, bottom, zero, base: bottom, left, right, slot, barW: slot * 0.56, stackX: W - 250,
    stackW: 110, us: Number.isFinite(us) ? us : zero - top,
    up: (bottom - top) / (d.fit === "one" ? 1 : Math.max(d.total, 1)) };
}

const masked = (d, i) => d.scores[i] === null;

function barHeight(d, g, i, stage) {
  if (masked(d, i)) return 0;
  const v = d[VALUES[stage]][i];
  return stage === "scores" || stage === "shift" ? v * g.us : v * g.up;
}

const barX = (g, i) => g.left + (i + 0.5) * g.slot - g.barW / 2;
const zeroAt = (g, stage) => (after(stage, "exp") ? g.base : g.zero);

/** Every element's state at `stage`: bars, masked hatches, stack segments, lines, value texts. */
function stateAt(d, g, stage) {
  const cum = [];
  d.exps.reduce((acc, e, i) => { cum[i] = acc; return acc + e; }, 0);
  const k = stage === "divide" ? g.up / d.total : g.up, z = zeroAt(g, stage), exp = after(stage, "exp");
  const rowMax = stage === "scores" ? z - d.row_max * g.us : z;
  const segment = (i) => (after(stage, "sum") ? boxAt(g.stackX, z - cum[i] * k, g.stackW, -d.exps[i] * k)
    : boxAt(barX(g, i), z, g.barW, -barHeight(d, g, i, "exp")));
  return {
    bars: d.labels.map((_, i) => ({ transform: boxAt(barX(g, i), z, g.barW, -barHeight(d, g, i, stage)) })),
    hatches: d.labels.map(() => ({ transform: `translate(0px, ${z}px) scale(1, ${exp ? 0 : 1}) translate(0px, ${-g.zero}px)` })),
    segments: d.labels.map((_, i) => ({ transform: segment(i), opacity: after(stage, "sum") ? 1 : 0 })),
    segLabels: d.labels.map((_, i) => ({ transform: `translate(${g.stackX + g.stackW + 12}px, ${z - (cum[i] + d.exps[i] / 2) * k}px)`,
      opacity: after(stage, "sum") && d.exps[i] * k >= 30 ? 1 : 0 })),
    axis: { transform: `translate(0px, ${z}px)` },
    maxLine: { transform: `translate(0px, ${rowMax}px)`, opacity: exp ? 0 : 1 },
    oneLine: { transform: `translate(0px, ${z - g.up}px)`, opacity: exp ? 1 : 0 },
    values: d.labels.map((_, i) => valueText(d, g, i, stage)),
    stack: stackText(d, g, stage),
  };
}

function valueText(d, g, i, stage) {
  const v = d[VALUES[stage]][i], h = barHeight(d, g, i, stage), x = g.left + (i + 0.5) * g.slot, z = zeroAt(g, stage);
  const blocked = masked(d, i), exp = after(stage, "exp"), y = blocked && !exp ? z + 40 : h >= 0 ? z - h - 14 : z - h + 32;
  const text = blocked ? (exp ? "0" : "−∞") : number(v, d.digits ?? 2);  // the masked look: "−∞", then a greyed 0
  return { text, cls: blocked ? `mech-value ${exp ? "zero" : "masked"}` : "mech-value",
    transform: `translate(${x}px, ${y}px)`, opacity: 1 };
}

function stackText(d, g, stage) {
  const x = g.stackX + g.stackW / 2;
  if (stage === "divide") {
    const sum = d.weights.reduce((a, b) => a + b, 0);
    return { text: `Σ = ${number(sum, 3)}`, transform: `translate(${x}px, ${g.base - g.up - 16}px)`, opacity: 1 };
  }
  return { text: `Σ = ${number(d.total, 2)}`, transform: `translate(${x}px, ${g.top - 16}px)`,
    opacity: stage === "sum" ? 1 : 0 };
}

/** The parts that do not move: title, axis, token labels, the masked keys' hatching. */
function drawStill(root, d, g, stage) {
  label(root, `${d.title} · ${FORMULA[stage]}`, { class: "mech-title", x: g.left, y: 40 });
  // The row as one object across frames (continuity.js): the strip of its keys, where each key's bar stands.
  if (d.identity) svg("rect", { class: "mech-identity", x: g.left, y: g.H - 56, width: d.labels.length * g.slot,
    height: 50, "data-identity": d.identity }, root);
  d.labels.forEach((t, i) => label(root, t, { class: "mech-token", x: g.left + (i + 0.5) * g.slot, y: g.H - 26,
    "text-anchor": "middle" }));
  return d.labels.map((_, i) => {
    if (!masked(d, i)) return null;
    const grp = svg("g", { class: "mech-masked" }, root), x = barX(g, i);
    svg("rect", { class: "mech-masked-cell", x, y: g.zero, width: g.barW, height: g.bottom - g.zero }, grp);
    hatch(grp, x, g.zero, g.barW, g.bottom - g.zero);
    return grp;
  });
}

/** A horizontal line drawn at y = 0 and placed by a transform: the zero axis, the row max, the 1. */
function drawLine(root, g, cls, text, x2, { end = false, line = "mech-guide" } = {}) {
  const grp = svg("g", { class: cls }, root);
  svg("line", { class: line, x1: g.left - 10, x2, y1: 0, y2: 0 }, grp);
  label(grp, text, { class: "mech-guide-label", x: end ? x2 + 8 : g.left - 18, y: 0, "dominant-baseline": "central",
    "text-anchor": end ? "start" : "end" });
  return grp;
}

/** A text that may change between stages: moved when it stays, cross-faded when it changes. */
function drawText(root, was, now, name, delay) {
  const t = label(root, now.text, { class: now.cls ?? "mech-value", "text-anchor": "middle" });
  if (name) focusable(t, name);
  if (!was || was.text === now.text) { morph(t, was, now, { delay }); return t; }
  const old = label(root, was.text, { class: was.cls ?? "mech-value", "text-anchor": "middle" });
  leave(old, was, { transform: now.transform }, { delay });
  morph(t, { ...was, opacity: 0 }, now, { delay });
  return t;
}

function render(el, widget) {
  const d = widget.data, W = widget.box.w, H = widget.box.h, stage = d.stage;
  const prev = previousStage(el, JSON.stringify([d.title, d.labels, d.scores]), stage);
  el.replaceChildren();  // a fresh drawing: its listeners and animations start from nothing
  const g = geometry(d, W, H), root = surface(el, W, H);
  root.classList.add("mech-softmax");
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", `${d.title}: softmax, ${FORMULA[stage]}`);
  const now = stateAt(d, g, stage), was = prev && !reducedMotion(el) ? stateAt(d, g, prev) : null;
  const hatches = drawStill(root, d, g, stage);
  // A segment too thin to see is not drawn: its non-scaling stroke on a near-singular transform
  // (e^−∞ = 0 high) would cost Chromium's painter far more than it shows.
  const segs = d.labels.map((_, i) => ((d.exps[i] * g.up) / d.total >= 0.5
    ? unitRect(root, { class: `mech-segment${i % 2 ? " alt" : ""}` }) : null));
  // Once shifted, each score's bar leaves its outline where it stood: the drop is the row max.
  if (stage === "shift") {
    const before = stateAt(d, g, "scores");
    d.labels.forEach((_, i) => masked(d, i) || morph(unitRect(root, { class: "mech-ghost" }),
      was && { ...before.bars[i], opacity: 0 }, { ...before.bars[i], opacity: 1 }));
  }
  const bars = d.labels.map(() => unitRect(root, { class: "mech-bar" }));
  const lines = { axis: drawLine(root, g, "mech-zero", "0", g.right, { line: "mech-axis" }),
    maxLine: drawLine(root, g, "mech-max", `max ${number(d.row_max, 2)}`, g.right, { end: true }),
    oneLine: drawLine(root, g, "mech-one", "1", g.stackX + g.stackW) };
  const segLabels = d.labels.map((t) => label(root, t, { class: "mech-guide-label", "dominant-baseline": "central" }));
  const stagger = (i) => (prev === "exp" && stage === "sum" ? i * 90 : 0);
  bars.forEach((b, i) => morph(b, was?.bars[i], now.bars[i]));
  // Leaving the bars, each segment starts as a full copy of its bar (at rest it is not drawn there).
  const lift = (st) => (st && prev === "exp" ? { ...st, opacity: 1 } : st);
  segs.forEach((s, i) => s && morph(s, lift(was?.segments[i]), now.segments[i], { delay: stagger(i) }));
  hatches.forEach((h, i) => h && morph(h, was?.hatches[i], now.hatches[i]));
  segLabels.forEach((s, i) => morph(s, was?.segLabels[i], now.segLabels[i], { delay: stagger(i) }));
  for (const key of ["axis", "maxLine", "oneLine"]) morph(lines[key], was?.[key], now[key]);
  const nums = d.labels.map((t, i) => drawText(root, was?.values[i], now.values[i],
    `${t}: ${FORMULA[stage]} = ${now.values[i].text}`, 0));
  drawText(root, was?.stack, now.stack, null, prev === "exp" ? PHASE / 2 : 0);
  setRoving(nums, 0);
  rovingLine(root, () => nums);
}

registerWidget("softmax", (el, widget) => render(el, widget));
