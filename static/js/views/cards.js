// "cards": a row or grid of text cards {title, body, tag?, kind?}, optionally joined by arrows.
// The card with index `active` is emphasised; cards already shown stay in place as new ones arrive
// (`align: "top"` stacks them from the box's top, so a card added on the next step moves no other).
import { registerWidget } from "./widgets.js";

function el(tag, cls, text, parent) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function render(root, widget) {
  const { cards = [], columns = 3, arrows = false, active = null, align = "center" } = widget.data;
  root.replaceChildren();
  const grid = el("div", `cards${arrows ? " with-arrows" : ""}${align === "top" ? " align-top" : ""}`, null, root);
  grid.style.setProperty("--cols", String(columns));
  cards.forEach((c, i) => {
    if (arrows && i > 0 && i % columns !== 0) el("div", "card-arrow", "→", grid).setAttribute("aria-hidden", "true");
    const card = el("div", `card kind-${c.kind || widget.kind}${i === active ? " active" : ""}`, null, grid);
    el("h3", "card-title", c.title, card);
    if (c.tag) el("p", "card-tag", c.tag, card);
    if (c.body) el("p", "card-body", c.body, card);
  });
}

registerWidget("cards", render);
