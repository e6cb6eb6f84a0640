// Motion that explains, for the matrix view: one choreography per step change, so that nothing
// overlaps in flight: what leaves fades out first (LEAVE), what stays moves next (MOVE), what is new
// fades in last. A few changes get their own motion: the causal mask sweeps in above the diagonal,
// softmax weights grow out as bars, appended rows (a growing KV cache) slide in, and a query row and
// a key column meet in their score cell. Web Animations on transform and opacity only; nothing here
// runs when the user asks for less motion (the callers ask views/moving.js motionFor, which also
// says when this module is not loaded yet: before the first paint, nothing moves).
export const LEAVE = 180, MOVE = 480, ENTER = 360;
const EASE = "cubic-bezier(.2, .7, .2, 1)";

/** Delays of the three phases of one step change. */
export function phases({ leaving, moving }) {
  const move = leaving ? LEAVE : 0;
  return { move, enter: move + (moving ? MOVE : 0) };
}

export function fadeIn(el, delay) {
  return el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: ENTER, delay, easing: EASE, fill: "backwards" });
}

export function fadeOut(el) {
  const a = el.animate([{ opacity: 1 }, { opacity: 0 }], { duration: LEAVE, easing: "ease-in", fill: "forwards" });
  a.finished.then(() => el.remove(), () => el.remove());
  return a;
}

const boxed = (el) => { el.style.transformBox = "fill-box"; return el; };

/** Newly masked cells, one diagonal after the other, from the diagonal to the far corner. */
export function sweepMask(cells, delay) {
  for (const { cell, r, c } of cells) {
    for (const part of cell.children) {
      boxed(part).style.transformOrigin = "0% 100%";
      part.animate([{ opacity: 0, transform: "scale(.2)" }, { opacity: 1, transform: "scale(1)" }],
        { duration: 260, delay: delay + (c - r - 1) * 70, easing: EASE, fill: "backwards" });
    }
  }
}

/** Softmax weights: each row's cells grow out from the left like bars, row after row. */
export function growBars(cellEls, rowOf, delay) {
  for (const cell of cellEls) {
    const rect = boxed(cell.querySelector("rect"));
    rect.style.transformOrigin = "0% 50%";
    const at = delay + rowOf(cell) * 60;
    rect.animate([{ transform: "scaleX(0)" }, { transform: "scaleX(1)" }],
      { duration: 420, delay: at, easing: EASE, fill: "backwards" });
    cell.querySelector("text").animate([{ opacity: 0 }, { opacity: 1 }],
      { duration: 240, delay: at + 240, fill: "backwards" });
  }
}

/** Rows that were not there before (a growing KV cache) slide in from above, one after the other. */
export function appendRows(rows, delay) {
  rows.forEach((cells, i) => {
    for (const part of cells.flatMap((cell) => [...cell.children])) {
      part.animate([{ opacity: 0, transform: "translateY(-14px)" }, { opacity: 1, transform: "none" }],
        { duration: 320, delay: delay + i * 90, easing: EASE, fill: "backwards" });
    }
  });
}

/** A translucent ghost of rectangle `from` travels onto rectangle `to` (canvas units) and fades. */
export function travel(canvas, from, to, kind, delay, { peak = 0.9, duration = 1100 } = {}) {
  const g = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  for (const [k, v] of Object.entries({ x: from.x, y: from.y, width: from.w, height: from.h, rx: 6 })) g.setAttribute(k, v);
  g.setAttribute("class", `ghost kind-${kind}`);
  canvas.appendChild(g);
  const at = `translate(${to.x - from.x}px, ${to.y - from.y}px) scale(${to.w / from.w}, ${to.h / from.h})`;
  g.style.transformOrigin = `${from.x}px ${from.y}px`;
  const a = g.animate([
    { transform: "none", opacity: 0 },
    { transform: "none", opacity: peak, offset: 0.2 },
    { transform: at, opacity: peak, offset: 0.85 },
    { transform: at, opacity: 0 },
  ], { duration, delay, easing: "ease-in-out", fill: "both" });
  a.finished.then(() => g.remove(), () => g.remove());
  return a;
}

/** A ghost of the query row and of the key column travel into the score cell and vanish; the
 * cell's value appears as they arrive. Rectangles in canvas units. */
export function meet(canvas, { row, col, cell, target, kinds }, delay) {
  travel(canvas, row, cell, kinds[0], delay);
  travel(canvas, col, cell, kinds[1], delay);
  target.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 240, delay: delay + 930, fill: "backwards" });
}

/** Each value row, as strong as its weight, travels into the output row and adds up there. */
export function mix(canvas, { rows, weights, out, kind, target }, delay) {
  rows.forEach((r, j) => travel(canvas, r, out, kind, delay + j * 110,
    { peak: 0.12 + 0.8 * Math.max(0, Math.min(1, weights[j])), duration: 1000 }));
  const end = delay + (rows.length - 1) * 110 + 850;
  for (const t of target) t.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 300, delay: end, fill: "backwards" });
}
