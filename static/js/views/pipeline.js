// "pipeline": the nine stages of self-attention stacked top to bottom, each with its operand
// shapes and result shape. The active stages (first…active) are highlighted by one frame that moves
// down the list from the previous step's place (motion on transform only; with reduced motion it
// simply stands at its end place, the same place the animation ends at).
import { TYPE } from "../lib/type.js";
import { registerWidget } from "./widgets.js";

function build(root, stages) {
  root.replaceChildren();
  const list = document.createElement("ol");
  list.className = "pipeline";
  stages.forEach(() => {
    const li = document.createElement("li");
    li.className = "pipe-stage";
    for (const cls of ["stage-title", "stage-formula", "stage-shape"]) {
      const span = document.createElement("span");
      span.className = cls;
      if (cls === "stage-formula") span.style.fontSize = `${TYPE.dense}px`;  // 20 CSS px at 1280 × 720
      li.appendChild(span);
    }
    list.appendChild(li);
  });
  const frame = document.createElement("div");
  frame.className = "pipe-frame";
  frame.setAttribute("aria-hidden", "true");
  root.append(list, frame);
  return list;
}

// The frame's end place: around the active stages, in the list's own (unscaled) coordinates.
function place(list, first, last) {
  const a = list.children[first], b = list.children[last];
  return { y: a.offsetTop, h: b.offsetTop + b.offsetHeight - a.offsetTop };
}

function moveFrame(frame, to, reduced) {
  const from = frame.dataset.y === undefined ? null : { y: Number(frame.dataset.y), h: Number(frame.dataset.h) };
  frame.style.height = `${to.h}px`;
  frame.style.transform = `translateY(${to.y}px)`;
  frame.dataset.y = String(to.y);
  frame.dataset.h = String(to.h);
  if (!from || reduced || (from.y === to.y && from.h === to.h) || !frame.animate) return;
  const sy = from.h / to.h;
  frame.animate([{ transform: `translateY(${from.y}px) scaleY(${sy})` }, { transform: `translateY(${to.y}px)` }],
    { duration: 450, easing: "cubic-bezier(.2,.7,.2,1)" });
}

registerWidget("pipeline", (root, widget) => {
  const { stages = [], active = 0 } = widget.data;
  const first = widget.data.first ?? active;
  let list = root.querySelector("ol.pipeline");
  if (!list || list.children.length !== stages.length) list = build(root, stages);
  [...list.children].forEach((li, i) => {
    const s = stages[i];  // texts refreshed every step: a kept list never shows an old stage's words
    const on = i >= first && i <= active;
    // Operand shapes only for the active stages (the result shape stays on every stage): fewer words.
    [s.title, on ? s.formula : "", s.shape].forEach((text, k) => { li.children[k].textContent = text; });
    li.classList.toggle("active", on);
    li.classList.toggle("done", i < first);
    if (i === active) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  });
  const frame = root.querySelector(".pipe-frame");
  const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
  moveFrame(frame, place(list, first, active), reduced);
});
