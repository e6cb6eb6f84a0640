// "pipeline": the nine stages of self-attention stacked top to bottom, each with its operand
// shapes and result shape; the active stage is highlighted and announced.
import { TYPE } from "../lib/type.js";
import { registerWidget } from "./widgets.js";

registerWidget("pipeline", (root, widget) => {
  const { stages = [], active = 0 } = widget.data;
  let list = root.querySelector("ol.pipeline");
  if (!list || list.children.length !== stages.length) {
    root.replaceChildren();
    list = document.createElement("ol");
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
    root.appendChild(list);
  }
  [...list.children].forEach((li, i) => {
    const s = stages[i];  // texts refreshed every step: a kept list never shows an old stage's words
    // Operand shapes only for the active stage (the result shape stays on every stage): fewer words.
    [s.title, i === active ? s.formula : "", s.shape].forEach((text, k) => { li.children[k].textContent = text; });
    li.classList.toggle("active", i === active);
    li.classList.toggle("done", i < active);
    if (i === active) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  });
});
