// Annotations computed by the frame builder, drawn as HTML boxes on the stage. A new note fades in
// with the step's new matrices (`enterDelay`, views/motion.js, once loaded: views/moving.js); a gone one goes at once.
import { motionFor } from "./moving.js";

export function renderNotes(layer, notes, enterDelay = 0) {
  const existing = new Map([...layer.querySelectorAll(":scope > .note")].map((el) => [el.dataset.note, el]));
  for (const n of notes) {
    let el = existing.get(n.id);
    existing.delete(n.id);
    if (!el) {
      el = document.createElement("div");
      el.dataset.note = n.id;
      layer.appendChild(el);
      motionFor(layer)?.fadeIn(el, enterDelay);
    }
    el.className = `note kind-${n.kind}`;
    Object.assign(el.style, { left: `${n.box.x}px`, top: `${n.box.y}px`, width: `${n.box.w}px`,
      maxHeight: `${n.box.h}px` });
    el.textContent = n.text;
  }
  for (const el of existing.values()) el.remove();
}
