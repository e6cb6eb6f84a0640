// "mask": the mask as a matrix M of 0 and −∞ added to the scaled scores (frames/kit/mechanisms.py;
// M is the engine's: causal, padding, or both). Stages: the scores alone; M beside them (it enters
// from the right); M slides onto the scores and is added: as it lands, each cell it blocks takes the
// masked look (hatched, "−∞") one diagonal after the other, and M, spent, fades. The scores stay put
// throughout; only M moves.
import { number } from "../lib/format.js";
import { label, reducedMotion, surface, svg } from "./dom.js";
import { focusable, hatch, leave, morph, PHASE, previousStage } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

const GUTTER = 110, HEAD = 150;  // room for the row labels and for the title and the column labels

function geometry(d, W, H) {
  const n = d.rows.length, m = d.cols.length, side = (W - 100) / 2;
  const cw = (side - GUTTER) / m, ch = Math.min((H - HEAD - 10) / n, cw);
  return { W, H, n, m, cw, ch, left: 0, right: side + 100, top: HEAD, side };
}

const blocked = (d, r, c) => d.mask[r][c] === null;

/** A score's tint, as the matrix view shades a heat map: from the smallest score to the largest. */
function heat(d, v) {
  const all = d.scores.flat(), lo = Math.min(...all), hi = Math.max(...all);
  return 0.08 + 0.42 * ((v - lo) / (hi - lo || 1));
}

/** Row and column labels and a frame for a matrix whose left edge is at `x0`. */
function drawAxes(grp, d, g, x0) {
  d.rows.forEach((t, r) => label(grp, t, { class: "mech-token", x: x0 + GUTTER - 12, y: g.top + (r + 0.5) * g.ch,
    "text-anchor": "end", "dominant-baseline": "central" }));
  d.cols.forEach((t, c) => {
    const x = x0 + GUTTER + (c + 0.5) * g.cw, y = g.top - 12;
    label(grp, t, { class: "mech-token", x, y, transform: `rotate(-40 ${x} ${y})` });
  });
}

/** One matrix: its cells and numbers; `look(r, c)` says whether a cell shows the masked look. */
function drawCells(grp, d, g, x0, values, look, kind) {
  const nums = [];
  values.forEach((row, r) => row.forEach((v, c) => {
    const x = x0 + GUTTER + c * g.cw, y = g.top + r * g.ch, cell = svg("g", { class: "mech-cell-g" }, grp);
    const base = svg("rect", { class: `mech-cell ${kind}`, x: x + 2, y: y + 2, width: g.cw - 4, height: g.ch - 4, rx: 4 }, cell);
    if (kind !== "mask-keep") base.style.fillOpacity = String(heat(d, d.scores[r][c]));
    if (look(r, c)) {
      svg("rect", { class: "mech-masked-bg", x: x + 2, y: y + 2, width: g.cw - 4, height: g.ch - 4, rx: 4 }, cell);
      svg("rect", { class: "mech-masked-cell", x: x + 2, y: y + 2, width: g.cw - 4, height: g.ch - 4, rx: 4 }, cell);
      hatch(cell, x + 2, y + 2, g.cw - 4, g.ch - 4, 12);
    }
    const t = label(cell, v === null ? "−∞" : number(v, kind === "mask-keep" ? 0 : d.digits ?? 2), {
      class: `mech-cell-num${v === null ? " masked" : ""}`, x: x + g.cw / 2, y: y + g.ch / 2,
      "text-anchor": "middle", "dominant-baseline": "central" });
    nums.push({ cell, t, r, c });
  }));
  return nums;
}

function drawScores(root, d, g, stage) {
  const grp = svg("g", { class: "mech-scores kind-scores" }, root);
  if (d.identity) grp.dataset.identity = d.identity;  // the scores as one object across frames (continuity.js)
  label(grp, stage === "added" ? d.result_label : d.scores_label, { class: "mech-title", x: 0, y: 36 });
  drawAxes(grp, d, g, 0);
  const values = stage === "added" ? d.result : d.scores;
  const nums = drawCells(grp, d, g, 0, values, (r, c) => stage === "added" && blocked(d, r, c), "scores-cell");
  nums.forEach(({ t, r, c }) => focusable(t, `${d.rows[r]} → ${d.cols[c]}: ${stage === "added" ? d.result_label
    : d.scores_label} = ${t.textContent}`));
  return nums;
}

function drawMask(root, d, g) {
  const grp = svg("g", { class: "mech-mask kind-mask" }, root);
  label(grp, d.mask_label, { class: "mech-title", x: g.right, y: 36 });
  drawAxes(grp, d, g, g.right);
  drawCells(grp, d, g, g.right, d.mask, (r, c) => blocked(d, r, c), "mask-keep")
    .forEach(({ t, r, c }) => focusable(t, `M, ${d.rows[r]} → ${d.cols[c]}: ${t.textContent}`));
  return grp;
}

/** When a blocked cell takes the masked look: once M has landed, one diagonal after the other. */
const landing = (r, c) => ({ delay: PHASE * 1.2 + Math.max(0, c - r - 1) * 60, duration: 320 });

/** The masked look of the blocked cells, at rest (the same state the landing ends in). */
function blockedAtRest(d, nums) {
  for (const { cell, r, c } of nums) if (blocked(d, r, c)) for (const part of [...cell.children].slice(1)) morph(part, null, { opacity: 1 });
}

/** M travels onto the scores (fully seen), then fades; as it lands, each cell it blocks changes look,
 * a diagonal at a time, its old number fading under the "−∞". */
function land(root, d, g, nums, fromApart) {
  const mask = drawMask(root, d, g), start = fromApart ? 0 : g.W * 0.4, to = `translate(${-g.right}px, 0px)`;
  mask.setAttribute("aria-hidden", "true");
  for (const t of mask.querySelectorAll(".mech-title, .mech-token")) t.remove();  // only the cells travel
  for (const t of mask.querySelectorAll(".mech-num")) t.removeAttribute("tabindex");
  const a = mask.animate([{ transform: `translate(${start}px, 0px)`, opacity: fromApart ? 1 : 0 },
    { transform: to, opacity: 1, offset: 0.65 }, { transform: to, opacity: 0 }],
  { duration: PHASE * 1.8, easing: "ease-in-out", fill: "forwards" });
  a.finished.then(() => mask.remove(), () => mask.remove());
  for (const { cell, r, c } of nums) {
    if (!blocked(d, r, c)) continue;
    const at = landing(r, c);
    for (const part of [...cell.children].slice(1)) morph(part, { opacity: 0 }, { opacity: 1 }, at);
    const old = label(cell, number(d.scores[r][c], d.digits ?? 2), { class: "mech-cell-num",
      x: GUTTER + (c + 0.5) * g.cw, y: g.top + (r + 0.5) * g.ch, "text-anchor": "middle", "dominant-baseline": "central" });
    leave(old, { opacity: 1 }, { opacity: 0 }, at);
  }
}

function render(el, widget) {
  const d = widget.data, W = widget.box.w, H = widget.box.h, stage = d.stage;
  const prev = previousStage(el, JSON.stringify([d.rows, d.cols, d.scores, d.mask]), stage);
  el.replaceChildren();
  const g = geometry(d, W, H), root = surface(el, W, H), moving = prev && !reducedMotion(el);
  root.classList.add("mech-mask-widget");
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", stage === "added" ? d.result_label : stage === "apart"
    ? `${d.scores_label} + ${d.mask_label}` : d.scores_label);
  const nums = drawScores(root, d, g, stage);
  if (stage !== "scores") {  // M beside the scores; once added, it stays there (at full contrast): what was added
    label(root, "+", { class: "mech-sign", x: g.side + 50, y: g.top + (g.n * g.ch) / 2, "text-anchor": "middle",
      "dominant-baseline": "central" });
    const mask = drawMask(root, d, g), now = { transform: "translate(0px, 0px)", opacity: 1 };
    const entering = { transform: `translate(${g.W * 0.3}px, 0px)`, opacity: 0 };
    morph(mask, moving ? (prev === "scores" ? entering : { ...now, opacity: 1 }) : null, now,
      { delay: stage === "added" ? PHASE * 1.2 : 0 });
  }
  if (stage === "added" && moving) land(root, d, g, nums, prev === "apart");
  else if (stage === "added") blockedAtRest(d, nums);
  const stops = [...root.querySelectorAll(".mech-num")];
  setRoving(stops, 0);
  rovingLine(root, () => stops);
}

registerWidget("mask", (el, widget) => render(el, widget));
