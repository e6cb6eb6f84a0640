// "rnn": an encoder–decoder diagram. The RNN reads source tokens into h₁…hₙ; in "bottleneck"
// mode the decoder gets only c = hₙ; in "attention" mode every state feeds the focus output word
// with a line whose width follows its (computed) weight.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

registerWidget("rnn", (root, widget) => {
  const { source, states, target, mode, weights, focus } = widget.data;
  const W = widget.box.w, H = widget.box.h;
  root.replaceChildren();
  const s = svg("svg", { class: `rnn mode-${mode}`, viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": `encoder states ${states.join(", ")}; decoder ${mode}` });
  const xs = source.map((_, i) => 110 + i * 200);
  const box = (cx, y, w, h, text, cls) => {
    const g = svg("g", { class: cls }, s);
    svg("rect", { x: cx - w / 2, y, width: w, height: h, rx: 10 }, g);
    svg("text", { x: cx, y: y + h / 2, "text-anchor": "middle", "dominant-baseline": "central" }, g).textContent = text;
    return g;
  };
  const line = (x1, y1, x2, y2, cls, width = 3) =>
    svg("line", { x1, y1, x2, y2, class: cls, "stroke-width": width }, s);
  source.forEach((tok, i) => {
    svg("text", { class: "rnn-token", x: xs[i], y: 30, "text-anchor": "middle" }, s).textContent = tok;
    line(xs[i], 42, xs[i], 72, "rnn-link");
    box(xs[i], 76, 120, 56, states[i], "rnn-state");
    if (i > 0) line(xs[i - 1] + 62, 104, xs[i] - 62, 104, "rnn-link arrow");
  });
  svg("text", { class: "rnn-note", x: 50, y: 290 }, s).textContent = "encoder reads left to right →";
  const dx = target.map((_, i) => 930 + i * 150);
  target.forEach((tok, i) => box(dx[i], 225, 136, 52, tok, `rnn-target${i === focus ? " focus" : ""}`));
  // Under the decoder's boxes, where no line passes (every line ends on the boxes' top edge).
  svg("text", { class: "rnn-note", x: dx[0] - 68, y: 303 }, s).textContent = "decoder writes →";
  const last = xs[xs.length - 1];
  if (mode === "bottleneck") {
    box(1160, 76, 200, 56, `c = ${states[states.length - 1]}`, "rnn-c");
    line(last + 62, 104, 1058, 104, "rnn-link arrow");
    dx.forEach((x) => line(1160, 134, x, 222, "rnn-link"));
  } else if (mode === "attention" && weights) {
    // Each α sits centred under its state; its line starts below the label, so no line crosses a label.
    weights.forEach((w, j) => {
      line(xs[j], 186, dx[focus], 222, "rnn-attn", 2 + 16 * w);
      svg("line", { x1: xs[j], y1: 134, x2: xs[j], y2: 146, class: "rnn-attn", "stroke-width": 2 + 16 * w }, s);
      const t = svg("text", { class: "rnn-weight", x: xs[j], y: 166, "text-anchor": "middle",
        "dominant-baseline": "central" }, s);
      t.style.fontSize = `${TYPE.dense}px`;
      t.textContent = `α = ${number(w, 2)}`;
    });
  }
  root.appendChild(s);
});
