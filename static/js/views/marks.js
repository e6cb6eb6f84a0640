// Operators between matrices (×, =, +, ÷ 11.31): large SVG text keyed by id, fading in and out.
import { reducedMotion, svg } from "./dom.js";
import { fadeIn } from "./motion.js";

export function renderSymbols(canvas, symbols, enterDelay = 0) {
  if (!canvas) return;
  const existing = new Map([...canvas.querySelectorAll(":scope > .symbol")].map((el) => [el.dataset.symbol, el]));
  for (const s of symbols) {
    let el = existing.get(s.id);
    existing.delete(s.id);
    if (!el) {
      el = svg("text", { class: "symbol" }, canvas);
      el.dataset.symbol = s.id;
      if (!reducedMotion(canvas)) fadeIn(el, enterDelay);
    }
    el.setAttribute("class", `symbol kind-${s.kind}`);
    el.setAttribute("x", s.x);
    el.setAttribute("y", s.y);
    el.setAttribute("font-size", s.size);
    el.textContent = s.text;
  }
  for (const el of existing.values()) el.remove();
}
