// Modes that take the keyboard before the key table (blackout, jump, overview) listen on window in
// the capture phase, so they see a key before KeyboardController (on document) and can claim it.
const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "CapsLock", "AltGraph", "Fn"]);

export function isModifierOnly(event) { return MODIFIERS.has(event.key); }

export function inTextField(event) {
  const el = event.target;
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  return el.isContentEditable || tag === "TEXTAREA" || tag === "SELECT" ||
    (tag === "INPUT" && !["button", "checkbox", "radio", "range", "submit"].includes(el.type));
}

/** Mark a key as handled: the key table (and any later mode) will not act on it. */
export function claim(event) {
  event.preventDefault();
  event.stopImmediatePropagation();
}

export function listenFirst(fn) {
  window.addEventListener("keydown", fn, true);
  return () => window.removeEventListener("keydown", fn, true);
}
