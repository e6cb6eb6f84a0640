// Operators between matrices (×, =, +, ÷ 11.31): large SVG text keyed by id, fading in and out.
import { svg } from "./dom.js";
import { motionFor } from "./moving.js";

export function renderSymbols(canvas, symbols, enterDelay = 0) {
  if (!canvas) return;
  const existing = new Map([...canvas.querySelectorAll(":scope > .symbol")].map((el) => [el.dataset.symbol, el]));
  for (const s of symbols) {
    let el = existing.get(s.id);
    existing.delete(s.id);
    if (!el) {
      el = svg("text", { class: "symbol" }, canvas);
      el.dataset.symbol = s.id;
      motionFor(canvas)?.fadeIn(el, enterDelay);
    }
    el.setAttribute("class", `symbol kind-${s.kind}`);
    el.setAttribute("x", s.x);
    el.setAttribute("y", s.y);
    el.setAttribute("font-size", s.size);
    el.textContent = s.text;
  }
  for (const el of existing.values()) el.remove();
}
