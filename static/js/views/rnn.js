// "rnn": an encoder–decoder diagram. The RNN reads the source tokens into h₁…hₙ (top row); the
// decoder writes the target words (bottom row, each under its source word). In "bottleneck" mode
// the decoder gets only c = hₙ. In "attention" mode the decoder state of the focus word is a node
// under the encoder, and an arc runs from every state to it: straight ribbons aimed at the node's
// centre, so no two meet (rays from one point never cross; at the node's rim neighbours stay
// RIM_GAP · sin(angle between them) apart, more than half their widths), each as wide as its weight
// (ARC_MAX · α, the engine's softmax). In "context" mode the context vector c = Σ αⱼ hⱼ is drawn
// beside the node as one bar split in the states' shares: the blend. Motion shows cause: entering
// "attention", every arc grows from a hairline to its width; entering "context", the blend's parts
// fill the bar one after the other. Transform and opacity only; with reduced motion, the end state.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { reducedMotion, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

export const ARC_MAX = 40;  // the width of an arc whose weight is 1 (widget units)
const NODE = { x: 480, y: 250, r: 50 };  // the decoder state of the focus word
const ROWS = { token: 30, state: 52, target: 330 };  // tops of the rows
const BOX = { w: 124, h: 56 };
const BLEND = { x: 940, y: 262, w: 500, h: 40 };  // the bar of c = Σ αⱼ hⱼ
const HAIR = 2;
const LABEL_ROW = 46;  // under each state: its weight, then its arc  // an arc's width when it starts to grow
const MS = 600;

const xAt = (i) => 150 + i * 220;

/** Where arc j runs: from under state j's weight label towards the node's centre, stopping short of
 * its rim; it starts low enough that its upper corner clears the label (half its width × cos θ). */
export function arcGeometry(j, weight) {
  const width = Math.max(ARC_MAX * weight, 1), x0 = xAt(j), top = ROWS.state + BOX.h + LABEL_ROW;
  const slope = (x, y) => Math.atan2(NODE.y - y, NODE.x - x);
  const y0 = top + (width / 2) * Math.abs(Math.cos(slope(x0, top)));
  const dx = NODE.x - x0, dy = NODE.y - y0, d = Math.hypot(dx, dy);
  return { x0, y0, angle: (Math.atan2(dy, dx) * 180) / Math.PI, length: d - NODE.r - 4, width };
}

function animate(el, from, to, delay = 0) {
  el.style.transform = to;
  if (from === null) return;
  el.animate([{ transform: from }, { transform: to }], { duration: MS, delay, easing: "ease-in-out", fill: "backwards" });
}

function fadeIn(el, delay = 0) {
  el.style.opacity = "1";
  el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: MS, delay, easing: "ease-in-out", fill: "backwards" });
}

function drawArcs(s, states, weights, grow) {
  weights.forEach((w, j) => {
    const a = arcGeometry(j, w);
    const g = svg("g", { class: "rnn-arc-g", "data-weight": w, "data-state": states[j] }, s);
    const place = (h) => `translate(${a.x0}px, ${a.y0}px) rotate(${a.angle}deg) scale(${a.length}, ${h})`;
    const arc = svg("rect", { class: "rnn-arc", x: 0, y: -0.5, width: 1, height: 1, "data-width": a.width,
      "data-x0": a.x0, "data-y0": a.y0, "data-angle": a.angle, "data-length": a.length }, g);
    animate(arc, grow ? place(HAIR) : null, place(a.width));
    // Its weight, centred under its state, above where its arc starts.
    const t = svg("text", { class: "rnn-weight", x: a.x0, y: ROWS.state + BOX.h + LABEL_ROW / 2 - 2,
      "text-anchor": "middle", "dominant-baseline": "central", role: "img", tabindex: "-1",
      "aria-label": `α${j + 1}, the weight of ${states[j]}: ${number(w, 3)}; the arc is ${number(w, 2)} of the widest` }, s);
    t.style.fontSize = `${TYPE.dense}px`;
    t.textContent = number(w, 2);
    if (grow) fadeIn(t, MS / 2);
  });
}

function drawNode(s, focus) {
  const g = svg("g", { class: "rnn-node" }, s);
  svg("circle", { cx: NODE.x, cy: NODE.y, r: NODE.r }, g);
  svg("text", { x: NODE.x, y: NODE.y, "text-anchor": "middle", "dominant-baseline": "central" }, g).textContent =
    `s${"₁₂₃₄₅₆₇₈₉"[focus] ?? ""}`;
  // The node is the decoder's state while it writes the focus word: a link down to that word.
  const tx = xAt(focus);
  svg("line", { class: "rnn-link", "stroke-width": 3, x1: NODE.x + NODE.r * 0.55, y1: NODE.y + NODE.r * 0.84, x2: tx - 20,
    y2: ROWS.target - 2 }, s);
  svg("text", { class: "rnn-note", x: BLEND.x, y: 170 }, s).textContent = "arc width = weight αⱼ";
}

function drawBlend(s, states, weights, fill) {
  const g = svg("g", { class: "rnn-blend", role: "img",
    "aria-label": `c = ${weights.map((w, j) => `${number(w, 2)}·${states[j]}`).join(" + ")}` }, s);
  svg("line", { class: "rnn-link", "stroke-width": 3, x1: NODE.x + NODE.r * 0.87, y1: NODE.y + NODE.r * 0.5, x2: BLEND.x - 6,
    y2: BLEND.y + BLEND.h / 2 }, g);
  svg("text", { class: "rnn-blend-label", x: BLEND.x, y: BLEND.y - 22 }, g).textContent = "c = Σ αⱼ hⱼ, the blend";
  let at = 0;
  weights.forEach((w, j) => {
    const x = BLEND.x + at * BLEND.w, width = w * BLEND.w;
    const part = svg("rect", { class: `rnn-blend-part${j % 2 ? " alt" : ""}`, x: 0, y: BLEND.y, width: 1,
      height: BLEND.h, "data-share": w }, g);
    animate(part, fill ? `translate(${x}px, 0px) scale(0.05, 1)` : null, `translate(${x}px, 0px) scale(${width}, 1)`,
      j * (MS / 2));
    if (width >= 56) {
      const t = svg("text", { class: "rnn-blend-name", x: x + width / 2, y: BLEND.y + BLEND.h / 2,
        "text-anchor": "middle", "dominant-baseline": "central" }, g);
      t.textContent = states[j];
      if (fill) fadeIn(t, j * (MS / 2) + MS / 2);
    }
    at += w;
  });
  svg("rect", { class: "rnn-blend-frame", x: BLEND.x, y: BLEND.y, width: BLEND.w, height: BLEND.h }, g);
}

/** Encoder mode: under each state, its numbers as small bars about a zero line (tanh: within ±1),
 * every state the same width however long the sentence. */
function drawValues(s, states, values) {
  const zero = 236, unit = 84, bw = 18, gap = 6;
  values.forEach((h, i) => {
    const g = svg("g", { class: "rnn-values", role: "img",
      "aria-label": `${states[i]} = [${h.map((v) => number(v, 2)).join(", ")}]` }, s);
    const x0 = xAt(i) - (h.length * bw + (h.length - 1) * gap) / 2;
    svg("line", { class: "rnn-link", x1: x0 - 6, x2: x0 + h.length * (bw + gap), y1: zero, y2: zero, "stroke-width": 2 }, g);
    h.forEach((v, k) => svg("rect", { class: "rnn-value", x: x0 + k * (bw + gap), y: v >= 0 ? zero - v * unit : zero,
      width: bw, height: Math.max(Math.abs(v) * unit, 1) }, g));
  });
}

registerWidget("rnn", (root, widget) => {
  const { source, states, target, mode, weights, focus, values } = widget.data;
  const W = widget.box.w, H = widget.box.h;
  const was = root.dataset.rnnMode ?? null, still = reducedMotion(root);
  root.dataset.rnnMode = mode;
  root.replaceChildren();
  const s = svg("svg", { class: `rnn mode-${mode}`, viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": `encoder states ${states.join(", ")}; decoder ${mode}` });
  const box = (cx, y, w, h, text, cls) => {
    const g = svg("g", { class: cls }, s);
    svg("rect", { x: cx - w / 2, y, width: w, height: h, rx: 10 }, g);
    svg("text", { x: cx, y: y + h / 2, "text-anchor": "middle", "dominant-baseline": "central" }, g).textContent = text;
    return g;
  };
  const line = (x1, y1, x2, y2, cls) => svg("line", { x1, y1, x2, y2, class: cls, "stroke-width": 3 }, s);
  const mid = ROWS.state + BOX.h / 2;
  source.forEach((tok, i) => {
    svg("text", { class: "rnn-token", x: xAt(i), y: ROWS.token, "text-anchor": "middle",
      "dominant-baseline": "central" }, s).textContent = tok;
    box(xAt(i), ROWS.state, BOX.w, BOX.h, states[i], "rnn-state");
    if (i > 0) line(xAt(i - 1) + BOX.w / 2, mid, xAt(i) - BOX.w / 2, mid, "rnn-link");
  });
  const endX = xAt(source.length - 1) + BOX.w / 2 + 70;
  svg("text", { class: "rnn-note", x: endX, y: ROWS.token, "dominant-baseline": "central" }, s).textContent =
    "encoder reads left to right →";
  target.forEach((tok, i) => box(xAt(i), ROWS.target, BOX.w + 12, 52, tok, `rnn-target${i === focus ? " focus" : ""}`));
  svg("text", { class: "rnn-note", x: endX, y: ROWS.target + 26, "dominant-baseline": "central" }, s).textContent =
    "decoder writes →";
  if (mode === "encoder" && values) drawValues(s, states, values);
  if (mode === "bottleneck") {
    const cx = endX + 110;
    box(cx, ROWS.state, 180, BOX.h, `c = ${states[states.length - 1]}`, "rnn-c");
    line(xAt(source.length - 1) + BOX.w / 2, mid, cx - 90, mid, "rnn-link");
    target.forEach((_, i) => line(cx, ROWS.state + BOX.h, xAt(i), ROWS.target - 2, "rnn-link"));
  } else if ((mode === "attention" || mode === "context") && weights) {
    drawNode(s, focus);
    drawArcs(s, states, weights, !still && was !== null && was !== "attention" && was !== "context");
    if (mode === "context") drawBlend(s, states, weights, !still && was === "attention");
  }
  root.appendChild(s);
});
