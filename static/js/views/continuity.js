// Continuity between frames (VISUAL.md §3): a slide change never shows an empty stage, and an
// object two frames share travels from its old place to its new one.
//
// - Slides: the old <section> leaves with direction (a short slide sideways and a fade, reversed
//   going back) while the new one enters, overlapping; both on transform and opacity, animated on
//   the HTML sections, so the compositor draws them.
// - Shared objects: every object a frame draws carries an identity — a tensor its `identity` (else
//   its `name`), a tensor's part (some rows or cells) the identity its `parts` give it, a widget
//   `widget:<id>`, a part of a widget the `data-identity` its view sets. When the new frame shows an
//   identity the old one had on another element, a traveller flies between them: a manual FLIP,
//   since view-transition-name on SVG children is not captured by Chromium. Before the new frame is
//   drawn the old elements' rectangles are read (the layout is clean then); after, a clipped copy of
//   the old element (its ancestors shallow, so the style sheet's selectors still apply) is put on the
//   stage where it was, and once the new frame is laid out (the next animation frame) it flies onto
//   the new element's rectangle with a transform animation of the copy's HTML box. The old element
//   is hidden while its copy flies (if it is leaving); the new one fades in as the copy arrives.
//   A widget's part is copied when the positions are read, since a frame that drops the widget
//   removes it at once (a heatmap's winning cell still flies into the head's map that replaces it).
//
// Everything here is under the stage, so settle() (views/moving.js) finishes it, and land() clears
// what is left at once: a key pressed mid-motion lands where loading the URL does. With reduced
// motion, and in a .still stage (speaker-view previews; the overview and the print view never come
// here), nothing moves: the same end state at once.
import { STAGE_W } from "../lib/stage-size.js";
import { reducedMotion } from "./dom.js";

export const SLIDE = 420, TRAVEL = 620, SHIFT = 64; // ms, ms, stage units
const IN_OUT = "cubic-bezier(.45, 0, .35, 1)";
const PAD = 6; // stage units around a copy, for strokes and outlines drawn outside the box
const ARRIVE = 0.55; // the new element fades in from this fraction of the flight

const pending = new WeakMap(); // stage → what land() must undo: { undo: [fn], frame: rAF id }

function book(stage) {
  if (!pending.has(stage)) pending.set(stage, { undo: [], frame: 0 });
  return pending.get(stage);
}

/** Clear every flight and slide change still on `stage`, at once: copies removed, hidden elements
 * shown, the leaving slide gone. Call it after settle(stage) (which finished their animations). */
export function land(stage) {
  const b = pending.get(stage);
  if (!b) return;
  cancelAnimationFrame(b.frame);
  for (const undo of b.undo.splice(0)) undo();
}

/** Whether this stage moves at all. Reading (a phone upright) shows one part at a time: no flights. */
export function moves(stage) {
  return !reducedMotion(stage) && !document.documentElement.classList.contains("reading");
}

/** The old slide leaves towards `dir` (1 forward, −1 back) while the new one enters from the other
 * side. `section.leaving` keeps the old one drawn (content-visibility) until its animation ends. */
export function changeSlides(stage, from, to, dir) {
  if (!from || from === to || reducedMotion(stage)) return;
  const b = book(stage);
  from.classList.add("leaving");
  const out = from.animate([{ opacity: 1, transform: "none" }, { opacity: 0, transform: `translateX(${-dir * SHIFT}px)` }],
    { duration: SLIDE, easing: IN_OUT, fill: "forwards" });
  to.animate([{ opacity: 0, transform: `translateX(${dir * SHIFT}px)` }, { opacity: 1, transform: "none" }],
    { duration: SLIDE, easing: IN_OUT, fill: "backwards" });
  const done = () => { from.classList.remove("leaving"); out.cancel(); };
  b.undo.push(done);
  out.finished.then(done, () => {});
}

// ---------- identities ----------

/** Every identified element a frame drew into `section`: identity → [element, …] (a part of a
 * tensor: the list of its cells, as one element). */
function identified(section, frame) {
  const found = new Map();
  const add = (id, el) => { if (!found.has(id)) found.set(id, []); found.get(id).push(el); };
  const canvas = section.querySelector(".canvas");
  for (const t of frame?.tensors ?? []) {
    const g = canvas?.querySelector(`:scope > .tensor[data-tensor="${CSS.escape(t.name)}"]:not(.leaving)`);
    if (!g) continue;
    add(t.identity ?? t.name, [g]);
    for (const part of t.parts ?? []) {
      const cells = partCells(g, part);
      if (cells.length) add(part.identity, cells);
    }
  }
  for (const w of section.querySelectorAll(".widget-layer > .widget")) add(`widget:${w.dataset.widget}`, [w]);
  for (const el of section.querySelectorAll(".widget-layer [data-identity]")) add(el.dataset.identity, [el]);
  return found;
}

/** The cells a part names: whole rows and single cells, in the tensor's own indices. */
function partCells(g, { rows = [], cells = [] }) {
  const sel = [...rows.map((r) => `.cell[data-r="${r}"]`), ...cells.map(([r, c]) => `.cell[data-r="${r}"][data-c="${c}"]`)];
  return sel.length ? [...g.querySelectorAll(sel.join(", "))] : [];
}

/** Stage-unit rectangle of elements, as the section draws them at rest (its own slide motion left out). */
function rectOf(stage, section, els) {
  const s = stage.getBoundingClientRect(), k = s.width / STAGE_W || 1;
  const sec = section.getBoundingClientRect();
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const el of els) {
    const r = el.getBoundingClientRect();
    if (!r.width && !r.height) continue;
    x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top); x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom);
  }
  if (x0 === Infinity) return null;
  const dx = sec.left - s.left, dy = sec.top - s.top; // the section's own offset (0 at rest)
  return { x: (x0 - s.left - dx) / k, y: (y0 - s.top - dy) / k, w: (x1 - x0) / k, h: (y1 - y0) / k };
}

/** Before a new frame is drawn: where the identified objects of the frame on screen are. */
export function snapshot(stage, section, frame) {
  if (!section || !frame || !moves(stage)) return null;
  const at = new Map();
  for (const [id, list] of identified(section, frame)) {
    const placed = list.map((els) => ({ els, rect: rectOf(stage, section, els), ...gone(section, els) }))
      .filter((p) => p.rect);
    if (placed.length) at.set(id, placed);
  }
  return { section, at };
}

/** A part of a widget (an element with data-identity inside it) is removed with its widget when the
 * next frame drops that widget: its copy is made now, while it is drawn, so it can still fly. */
function gone(section, els) {
  const w = els[0]?.closest?.(".widget-layer > .widget");
  if (!w || els.includes(w)) return {};
  return { widget: w.dataset.widget, copy: prunedCopy(section, els) };
}

// ---------- flights ----------

/** After the new frame is drawn into `section`: fly what it shares with `before` (a snapshot). */
export function travel(stage, before, section, frame) {
  if (!before || !moves(stage)) return;
  const flights = [];
  for (const [id, targets] of identified(section, frame)) {
    const sources = before.at.get(id);
    if (!sources) continue;
    targets.forEach((els, i) => {
      const src = sources[Math.min(i, sources.length - 1)];
      if (same(src.els, els)) return; // kept in place
      if (src.els.some((e) => !e.isConnected) && !(src.copy && !widgetIn(section, src.widget))) return; // redrawn
      flights.push({ src, els });
    });
  }
  if (!flights.length) return;
  const b = book(stage);
  const started = flights.map((f) => launch(stage, before.section, f, b));
  cancelAnimationFrame(b.frame);
  // Once the new frame is laid out (its room for the caption applied), aim every copy at its target.
  b.frame = requestAnimationFrame(() => {
    for (const s of started) aim(stage, section, s);
  });
}

const widgetIn = (section, id) => !!section.querySelector(`.widget-layer > [data-widget="${CSS.escape(id)}"]`);
const same = (a, b) => a.length === b.length && a.every((e, i) => e === b[i]);

/** The elements `els` alone, with their ancestors up to `section` copied shallow (classes, styles,
 * transforms), so the copy looks as the original did and the style sheet's rules still match. */
function prunedCopy(section, els) {
  const keep = new Set();
  for (const el of els) for (let e = el.parentElement; e && e !== section; e = e.parentElement) keep.add(e);
  const targets = new Set(els);
  const copy = (node) => {
    if (targets.has(node)) return node.cloneNode(true);
    const c = node.cloneNode(false);
    for (const child of node.children) if (keep.has(child) || targets.has(child)) c.appendChild(copy(child));
    return c;
  };
  const inner = document.createElement("div");
  inner.className = "traveller-space";
  for (const child of section.children) if (keep.has(child) || targets.has(child)) inner.appendChild(copy(child));
  return inner;
}

/** Put a copy of the source where it is and hide the source if it is leaving; the target waits. */
function launch(stage, fromSection, { src, els }, b) {
  const r = src.rect;
  const box = document.createElement("div");
  box.className = "traveller";
  box.setAttribute("aria-hidden", "true");
  Object.assign(box.style, { left: `${r.x - PAD}px`, top: `${r.y - PAD}px`, width: `${r.w + 2 * PAD}px`,
    height: `${r.h + 2 * PAD}px` });
  const inner = src.copy ?? prunedCopy(fromSection, src.els);
  Object.assign(inner.style, { left: `${PAD - r.x}px`, top: `${PAD - r.y}px` });
  box.appendChild(inner);
  // Over the slides, under the caption bar (which covers the drawing's foot, as on the slides).
  stage.insertBefore(box, stage.querySelector(":scope > .caption-bar"));
  const leaving = src.els.filter((e) => fromSection.classList.contains("leaving") || e.closest(".leaving"));
  for (const e of leaving) e.style.visibility = "hidden";
  const flight = box.animate([{ transform: "none" }, { transform: "none" }], { duration: TRAVEL, fill: "forwards" });
  const arrive = els.map((e) => e.animate([{ opacity: 0 }, { opacity: 0, offset: ARRIVE }, { opacity: 1 }],
    { duration: TRAVEL, easing: "linear", fill: "backwards" }));
  const done = () => {
    box.remove();
    for (const e of leaving) e.style.visibility = "";
  };
  b.undo.push(() => { done(); flight.cancel(); for (const a of arrive) a.finish(); });
  flight.finished.then(done, () => {});
  return { flight, box, from: r, els };
}

/** Aim a launched copy: a translate and one scale (text is never stretched) that fit its rectangle
 * into the target's from its top left corner, easing in and out, and fading as the target appears
 * under it. */
function aim(stage, section, { flight, from, els }) {
  const to = rectOf(stage, section, els);
  if (!to || flight.playState === "finished") return;
  const s = Math.min(to.w / (from.w || 1), to.h / (from.h || 1));
  const tx = to.x - from.x + PAD - s * PAD, ty = to.y - from.y + PAD - s * PAD;
  const end = `translate(${tx.toFixed(1)}px, ${ty.toFixed(1)}px) scale(${s.toFixed(4)})`;
  flight.effect.setKeyframes([
    { transform: "none", opacity: 1, easing: IN_OUT },
    { transform: end, opacity: 1, offset: 0.85 },
    { transform: end, opacity: 0 },
  ]);
}
