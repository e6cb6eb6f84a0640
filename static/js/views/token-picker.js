// "token-picker": choose a query token (click, keys 1–9, Tab / Shift+Tab) and show its row of
// attention weights with the row sum. Every row is precomputed by the frame builder; the view only
// picks one. Keys are handled only while the picker's slide is the active one.
import { drawBars } from "./weight-bars.js";
import { registerWidget } from "./widgets.js";

let gPendingUntil = 0; // the player's "G then number" jump owns digits right after G

function select(root, index) {
  const data = JSON.parse(root.dataset.picker);
  const i = Math.max(0, Math.min(data.tokens.length - 1, index));
  root.dataset.selected = String(i);
  root.querySelectorAll(".picker-token").forEach((b, k) => {
    b.classList.toggle("selected", k === i);
    b.setAttribute("aria-pressed", String(k === i));
  });
  drawBars(root.querySelector(".picker-bars"), {
    title: `${data.title}: “${data.tokens[i]}”`, labels: data.tokens, values: data.rows[i], digits: 3,
    highlight: i, sum: data.sums[i],
  });
}

registerWidget("token-picker", (root, widget) => {
  const { tokens } = widget.data;
  root.dataset.picker = JSON.stringify(widget.data);
  root.replaceChildren();
  const bar = document.createElement("div");
  bar.className = "picker-tokens";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Choose a query token (keys 1–9 or Tab)");
  tokens.forEach((tok, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "picker-token";
    b.dataset.index = String(i);
    const key = document.createElement("span");
    key.className = "picker-key";
    key.textContent = i < 9 ? String(i + 1) : "";
    b.append(key, document.createTextNode(tok));
    b.addEventListener("click", () => select(root, i));
    bar.appendChild(b);
  });
  const bars = document.createElement("div");
  bars.className = "picker-bars";
  bars.setAttribute("aria-live", "polite");
  root.append(bar, bars);
  select(root, widget.data.selected ?? 0);
});

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "g" || event.key === "G") { gPendingUntil = Date.now() + 2000; return; }
  const root = document.querySelector(".slide.active .widget-token-picker");
  if (!root) return;
  const t = event.target;
  if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
  const current = Number(root.dataset.selected || 0);
  if (/^[1-9]$/.test(event.key)) {
    if (Date.now() < gPendingUntil) return;
    const n = Number(event.key) - 1;
    if (n >= JSON.parse(root.dataset.picker).tokens.length) return;
    select(root, n);
    event.stopPropagation();
  } else if (event.key === "Tab" && (t === document.body || root.contains(t))) {
    const count = JSON.parse(root.dataset.picker).tokens.length;
    select(root, (current + (event.shiftKey ? count - 1 : 1)) % count);
    root.querySelectorAll(".picker-token")[Number(root.dataset.selected)].focus({ preventScroll: true });
    event.preventDefault();
    event.stopPropagation();
  }
});
