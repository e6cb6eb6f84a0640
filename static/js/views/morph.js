// What the mechanism views (softmax.js, mask.js, scaling.js) share: each draws the stage it is given
// as its end state (transform and opacity set on the elements), and, when the same widget drew the
// stage before, plays the motion from that stage's state with Web Animations (transform and opacity
// only, ease-in-out, 300–700 ms per phase; views/moving.js `settle` finishes them when a key comes
// mid-motion). With reduced motion nothing animates and the end state is the same. The masked look
// (VISUAL.md §5: hatched, "−∞", a greyed "0") is drawn here too, so all three draw it alike.
import { stylesheet } from "../lib/stylesheet.js";
import { label, surface, svg } from "./dom.js";

// The mechanisms' style sheet applies before any of their views can draw: widget-views.js awaits a
// view's import before it hands out the frames that need it, and this import waits for the sheet.
await stylesheet("mechanisms.css");

export const PHASE = 600;  // ms, one phase of a mechanism's motion
const EASE = "ease-in-out";

/** The state an element shows: a CSS transform and an opacity (both strings or numbers). */
export function place(el, { transform = "none", opacity = 1 }) {
  el.style.transform = transform;
  el.style.opacity = String(opacity);
  return el;
}

/** Set `el` to `to`; with `from` (the previous stage's state of the same element), animate from it. */
export function morph(el, from, to, { delay = 0, duration = PHASE } = {}) {
  place(el, to);
  if (!from) return null;
  const a = { transform: from.transform ?? "none", opacity: String(from.opacity ?? 1) };
  const b = { transform: to.transform ?? "none", opacity: String(to.opacity ?? 1) };
  if (a.transform === b.transform && a.opacity === b.opacity) return null;
  return el.animate([a, b], { duration, delay, easing: EASE, fill: "backwards" });
}

/** An element that leaves: it goes from `from` to `to` and is removed when done (or settled). */
export function leave(el, from, to, opts = {}) {
  const a = morph(el, from, { opacity: 0, ...to }, opts);
  el.setAttribute("aria-hidden", "true");
  el.removeAttribute("tabindex");
  if (!a) { el.remove(); return; }
  a.finished.then(() => el.remove(), () => el.remove());
}

/** A unit rectangle (0..1 × 0..1) placed by a transform: the bars of the mechanism views. */
export function unitRect(parent, attrs = {}) {
  return svg("rect", { x: 0, y: 0, width: 1, height: 1, ...attrs }, parent);
}

/** The transform that lays a unit rectangle over x, y (top left), w × h (h may be negative: upwards). */
export const boxAt = (x, y, w, h) => `translate(${x}px, ${y}px) scale(${w}, ${h})`;

/** Diagonal hatching over a rectangle, as one path clipped to it by construction: the masked look. */
export function hatch(parent, x, y, w, h, gap = 14) {
  const parts = [];
  for (let c = gap; c < w + h; c += gap) {  // the line x' + y' = c inside [0, w] × [0, h]
    const x0 = Math.max(0, c - h), x1 = Math.min(w, c);
    parts.push(`M${x + x0} ${y + c - x0}L${x + x1} ${y + c - x1}`);
  }
  return svg("path", { class: "mech-hatch", d: parts.join("") }, parent);
}

/** Whether the widget element last drew `signature` (same data but its stage) and at which stage. */
export function previousStage(el, signature, stage) {
  const prev = el.dataset.mechSignature === signature ? el.dataset.mechStage : null;
  el.dataset.mechSignature = signature;
  el.dataset.mechStage = stage;
  return prev && prev !== stage ? prev : null;
}

/** A staged view's redraw (rope, gqa, sizes): its surface cleared and named by the data's title for
 * screen readers, the title drawn (class `mech-title` and `titleClass`); and the stage the element drew
 * last (null: none yet), the new one recorded. */
export function stagedSurface(el, w, titleClass = "") {
  const before = el.dataset.drawnStage ?? null;
  el.dataset.drawnStage = w.data.stage;
  const root = surface(el, w.box.w, w.box.h);
  root.replaceChildren();
  root.setAttribute("role", "group");
  root.setAttribute("aria-label", w.data.title);
  label(root, w.data.title, { x: 0, y: 30, class: `mech-title ${titleClass}`.trim() });
  return { root, before };
}

/** A number the audience can focus: its value said in full in its accessible name. */
export function focusable(el, name) {
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", name);
  el.setAttribute("tabindex", "-1");
  el.classList.add("mech-num");
  return el;
}
