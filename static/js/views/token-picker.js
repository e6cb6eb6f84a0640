// "token-picker": choose a query token (click; the arrows inside the picker, one Tab stop; or keys
// 1–9 through the talk's TokenPickerKeys controller) and show its row of attention weights with the
// row sum. Every row is precomputed by the frame builder; the view only picks one.
import { TYPE } from "../lib/type.js";
import { rovingLine, setRoving } from "./roving.js";
import { drawBars } from "./weight-bars.js";
import { registerWidget } from "./widgets.js";

const dataOf = (root) => JSON.parse(root.dataset.picker);

/** How many tokens the picker `root` offers. */
export function tokenCount(root) { return dataOf(root).tokens.length; }

/** Select token `index` (clamped) of the picker `root` and draw its row. */
export function selectToken(root, index) {
  const data = dataOf(root);
  const i = Math.max(0, Math.min(data.tokens.length - 1, index));
  root.dataset.selected = String(i);
  const buttons = [...root.querySelectorAll(".picker-token")];
  buttons.forEach((b, k) => {
    b.classList.toggle("selected", k === i);
    b.setAttribute("aria-pressed", String(k === i));
  });
  setRoving(buttons, i);
  drawBars(root.querySelector(".picker-bars"), {
    title: `${data.title}: “${data.tokens[i]}”`, labels: data.tokens, values: data.rows[i], digits: 3,
    highlight: i, sum: data.sums[i], scale_max: data.scale_max ?? null,
    future: data.causal ? data.tokens.map((_, j) => j > i) : null,
  });
}

registerWidget("token-picker", (root, widget) => {
  const { tokens } = widget.data;
  root.dataset.picker = JSON.stringify(widget.data);
  root.replaceChildren();
  const bar = document.createElement("div");
  bar.className = "picker-tokens";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Choose a query token (arrow keys, or 1–9)");
  tokens.forEach((tok, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "picker-token";
    b.dataset.index = String(i);
    const key = document.createElement("span");
    key.className = "picker-key";
    key.textContent = i < 9 ? String(i + 1) : "";
    key.style.fontSize = `${TYPE.dense}px`;
    b.append(key, document.createTextNode(tok));
    b.addEventListener("click", () => selectToken(root, i));
    bar.appendChild(b);
  });
  rovingLine(bar, () => [...bar.querySelectorAll(".picker-token")], (k) => selectToken(root, k));
  const bars = document.createElement("div");
  bars.className = "picker-bars";
  bars.setAttribute("aria-live", "polite");
  root.append(bar, bars);
  selectToken(root, widget.data.selected ?? 0);
});
