// Registry of widget views: a frame's widget {id, type, box, kind, data} is drawn by the view
// registered under its type. Each widget kind has its own module that calls
// registerWidget(kind, render) with `render(el, widget, ctx)`; widget-views.js imports them all.
// The element `el` is an absolutely positioned <div class="widget"> in stage units, kept across
// steps while the widget's id stays, so a view can animate from its previous state.
import { motionFor } from "./moving.js";

const VIEWS = new Map();

export function registerWidget(type, render) { VIEWS.set(type, render); }

/**
 * A widget's drawing is one image to a screen reader, named by its words in reading order (its
 * title first), instead of dozens of loose numbers; its buttons and sliders stay outside it.
 */
function nameDrawing(el, w) {
  for (const drawing of el.querySelectorAll("svg.widget-svg")) {
    if (drawing.hasAttribute("aria-label") && !drawing.dataset.autoName) continue;  // the view named it
    drawing.dataset.autoName = "1";
    const words = [...drawing.querySelectorAll("text")].map((t) => t.textContent.trim()).filter(Boolean);
    const title = w.data?.title;
    const name = [title, ...words.filter((t) => t !== title)].filter(Boolean).join(", ");
    drawing.setAttribute("role", "img");
    drawing.setAttribute("aria-label", name || w.type.replace(/-/g, " "));
  }
}

export function renderWidgets(layer, widgets, ctx = {}) {
  if (!layer) return;
  const existing = new Map([...layer.querySelectorAll(":scope > .widget")].map((el) => [el.dataset.widget, el]));
  for (const w of widgets) {
    const render = VIEWS.get(w.type);
    if (!render) { console.error(`no widget view registered for type "${w.type}"`); continue; }
    let el = existing.get(w.id);
    existing.delete(w.id);
    if (!el || el.dataset.type !== w.type) {
      if (el) el.remove();
      el = document.createElement("div");
      el.dataset.widget = w.id;
      el.dataset.type = w.type;
      layer.appendChild(el);
      motionFor(layer)?.fadeIn(el, ctx.enter || 0);
    }
    el.className = `widget widget-${w.type} kind-${w.kind}`;
    Object.assign(el.style, { left: `${w.box.x}px`, top: `${w.box.y}px`, width: `${w.box.w}px`,
      height: `${w.box.h}px` });
    render(el, w, ctx);
    nameDrawing(el, w);
  }
  for (const el of existing.values()) el.remove();
}
