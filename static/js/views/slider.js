// "slider": pick a context length n from a fixed list; show the pair count and memory computed
// for each n by the cost model (engine.costs), with their formulas. No arithmetic here.
import { bytes, count } from "../lib/format.js";
import { registerWidget } from "./widgets.js";

/** Exact, then short: "1,207,959,552 bytes (1.21 GB)". */
function memory(b) {
  return b >= 1000 ? `${count(b)} bytes (${bytes(b)})` : bytes(b);
}

function show(root, data, i) {
  const o = data.options[i];
  root.querySelector(".slider-n").textContent = `n = ${count(o.n)}`;
  const rows = [
    ["pairs scored, one head", count(o.cells), o.cells_formula],
    ["map memory, one head (bf16)", memory(o.bytes), o.bytes_formula],
    [`map memory, ${data.heads} heads`, memory(o.all_heads_bytes), `${data.heads} × one head`],
  ];
  root.querySelectorAll(".slider-out").forEach((el, k) => {
    el.querySelector(".out-label").textContent = rows[k][0];
    el.querySelector(".out-value").textContent = rows[k][1];
    el.querySelector(".out-formula").textContent = rows[k][2];
  });
  root.querySelector(".slider-square").style.setProperty("--side", String(o.side));
}

registerWidget("slider", (root, widget) => {
  const data = widget.data;
  root.replaceChildren();
  const label = document.createElement("label");
  label.className = "slider-label";
  const title = document.createElement("span");
  title.textContent = data.title;
  const n = document.createElement("span");
  n.className = "slider-n";
  const input = document.createElement("input");
  input.type = "range";
  input.min = "0";
  input.max = String(data.options.length - 1);
  input.step = "1";
  input.value = String(data.selected);
  input.setAttribute("aria-valuetext", `n = ${data.options[data.selected].n}`);
  label.append(title, input, n);
  const outs = document.createElement("div");
  outs.className = "slider-outs";
  for (let k = 0; k < 3; k++) {
    const o = document.createElement("div");
    o.className = "slider-out";
    for (const cls of ["out-label", "out-value", "out-formula"]) {
      const s = document.createElement("span");
      s.className = cls;
      o.appendChild(s);
    }
    outs.appendChild(o);
  }
  const square = document.createElement("div");
  square.className = "slider-square";
  square.setAttribute("aria-hidden", "true");
  square.appendChild(document.createElement("div"));
  const note = document.createElement("p");
  note.className = "slider-square-label";
  note.textContent = data.square_label || "";
  square.appendChild(note);
  root.append(label, outs, square);
  input.addEventListener("input", () => {
    const i = Number(input.value);
    input.setAttribute("aria-valuetext", `n = ${data.options[i].n}`);
    show(root, data, i);
  });
  // Arrow keys move the slider while it has focus; they must not also step the talk.
  input.addEventListener("keydown", (e) => { if (e.key.startsWith("Arrow")) e.stopPropagation(); });
  show(root, data, data.selected);
});
