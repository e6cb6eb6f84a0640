// "equation": shows one of the slide's server-rendered MathML equations (latex2mathml, in
// templates/_partials/_equations.html) by copying its node; no maths is typeset in JS.
import { registerWidget } from "./widgets.js";

registerWidget("equation", (root, widget, ctx) => {
  const source = ctx.section?.querySelector(`.equation-source[data-equation="${CSS.escape(widget.data.name)}"]`);
  root.replaceChildren();
  if (!source) { console.warn(`equation "${widget.data.name}" is not on this slide`); return; }
  const box = document.createElement("div");
  box.className = "equation";
  box.append(...[...source.childNodes].map((n) => n.cloneNode(true)));
  root.appendChild(box);
});
