// Counter chips (e.g. FLOPs per token) in the slide header, each with its formula and source.
import { count } from "../lib/format.js";

export function renderCounters(box, counters) {
  if (!box) return;
  const existing = new Map([...box.querySelectorAll(".counter-chip")].map((el) => [el.dataset.counter, el]));
  for (const c of counters) {
    let el = existing.get(c.id);
    existing.delete(c.id);
    if (!el) {
      el = document.createElement("div");
      el.className = "counter-chip";
      el.dataset.counter = c.id;
      el.append(document.createElement("span"), document.createElement("span"));
      el.children[0].className = "label";
      el.children[1].className = "value";
      box.appendChild(el);
    }
    el.children[0].textContent = c.label;
    el.children[1].textContent = `${count(c.value)}${c.unit ? ` ${c.unit}` : ""}`;
    el.title = `${c.formula}\nSource: ${c.source}`;
  }
  for (const el of existing.values()) el.remove();
}
