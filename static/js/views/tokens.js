// A sentence as a row of token chips; the focus token is marked, and optional arcs link it to
// the others (their strength comes from the frame; no numbers are drawn here).
import { TYPE } from "../lib/type.js";
import { label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

function render(el, w) {
  const { tokens, focus, links } = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  const chipH = Math.min(64, H * 0.62), gap = 14;
  const widths = tokens.map((t) => Math.max(70, 26 + t.length * 17));
  const total = widths.reduce((a, b) => a + b, 0) + gap * (tokens.length - 1);
  const scale = Math.min(1, W / total);
  let x = (W - total * scale) / 2;
  const y = H - chipH - 4;
  const centres = [];
  tokens.forEach((t, i) => {
    const cw = widths[i] * scale;
    const g = svg("g", { class: `token-chip${i === focus ? " focus" : ""}` }, root);
    svg("rect", { x, y, width: cw, height: chipH, rx: 12 }, g);
    label(g, t, { x: x + cw / 2, y: y + chipH / 2, "text-anchor": "middle", "dominant-baseline": "central",
      "font-size": Math.max(TYPE.label, Math.min(32, chipH * 0.5)) });
    centres.push(x + cw / 2);
    x += cw + gap * scale;
  });
  if (links && focus !== null && focus !== undefined) {
    links.forEach((strength, i) => {
      if (i === focus || strength <= 0) return;
      const x1 = centres[focus], x2 = centres[i];
      const lift = Math.min(y - 6, 30 + Math.abs(x2 - x1) * 0.35);
      svg("path", { class: "token-link", d: `M ${x1} ${y} Q ${(x1 + x2) / 2} ${y - lift} ${x2} ${y}`,
        "stroke-width": 2 + 5 * strength, opacity: 0.35 + 0.6 * strength }, root);
    });
  }
}

registerWidget("tokens", render);
