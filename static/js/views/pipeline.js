// "pipeline": the nine stages of self-attention stacked top to bottom, each with its operand
// shapes and result shape; the active stage is highlighted and announced.
import { registerWidget } from "./widgets.js";

registerWidget("pipeline", (root, widget) => {
  const { stages = [], active = 0 } = widget.data;
  let list = root.querySelector("ol.pipeline");
  if (!list || list.children.length !== stages.length) {
    root.replaceChildren();
    list = document.createElement("ol");
    list.className = "pipeline";
    stages.forEach((s) => {
      const li = document.createElement("li");
      li.className = "pipe-stage";
      for (const [cls, text] of [["stage-title", s.title], ["stage-formula", s.formula], ["stage-shape", s.shape]]) {
        const span = document.createElement("span");
        span.className = cls;
        span.textContent = text;
        li.appendChild(span);
      }
      list.appendChild(li);
    });
    root.appendChild(list);
  }
  [...list.children].forEach((li, i) => {
    li.classList.toggle("active", i === active);
    li.classList.toggle("done", i < active);
    if (i === active) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
  });
});
