// "weight-bars": one labelled bar per value (e.g. a row of attention weights), with the row's sum when
// given. Values arrive computed. A full track is `scale_max` (1 for probabilities, so a weight of 0.25
// fills a quarter); without it, the largest value fills the track (counts, bytes). `future[i]` marks a
// bar the causal mask blocks (its value is exactly 0). The label and value columns are as wide as
// their longest text (a label at most 40 % of the row), so a long count is never cut or pushed out.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { registerWidget } from "./widgets.js";

export function drawBars(root, { title, labels, values, digits = 3, highlight = null, sum = null,
  value_labels: valueLabels = null, scale_max: scaleMax = null, future = null,
  masked_text: maskedText = "future: masked" }, kind = "weights") {
  root.replaceChildren();
  const head = document.createElement("h3");
  head.className = "wb-title";
  head.textContent = title || "";
  root.appendChild(head);
  const list = document.createElement("div");
  list.className = `wb-list kind-${kind}`;
  list.setAttribute("role", "list");
  const max = scaleMax ?? Math.max(...values.map(Math.abs), 1e-12);
  const shown = values.map((v, i) => (valueLabels ? valueLabels[i] : number(v, digits)));
  const longest = (texts) => Math.max(1, ...texts.map((t) => String(t).length));
  list.style.setProperty("--wb-label", `${(longest(labels) * 0.66 + 0.6).toFixed(2)}em`);  // proportional type
  list.style.setProperty("--wb-value", `${(longest(shown) * 0.62 + 0.3).toFixed(2)}em`);  // monospace digits
  values.forEach((v, i) => {
    const row = document.createElement("div");
    row.className = `wb-row${i === highlight ? " hl" : ""}${future && future[i] ? " future" : ""}`;
    row.setAttribute("role", "listitem");
    const label = document.createElement("span");
    label.className = "wb-label";
    label.textContent = labels[i];
    const track = document.createElement("span");
    track.className = "wb-track";
    const fill = document.createElement("span");
    fill.className = "wb-fill";
    fill.style.width = `${Math.min(100, (100 * Math.abs(v)) / max)}%`;
    track.appendChild(fill);
    const value = document.createElement("span");
    value.className = "wb-value";
    value.textContent = shown[i];
    if (future && future[i]) {  // the causal mask's zero: the masked look (hatched, a greyed "0"), said in the track
      track.classList.add("masked-hatch");
      value.textContent = "0";
      const why = document.createElement("span");
      why.textContent = maskedText;  // short: it must fit a narrow track
      Object.assign(why.style, { position: "absolute", left: "14px", top: "50%", transform: "translateY(-50%)",
        fontSize: `${TYPE.label}px`, whiteSpace: "nowrap" });
      track.style.position = "relative";
      track.appendChild(why);
    }
    row.append(label, track, value);
    list.appendChild(row);
  });
  root.appendChild(list);
  if (sum !== null && sum !== undefined) {
    const total = document.createElement("p");
    total.className = "wb-sum";
    total.textContent = `row sum ${number(sum, 3)}`;
    root.appendChild(total);
  }
}

registerWidget("weight-bars", (root, widget) => drawBars(root, widget.data, widget.kind));
