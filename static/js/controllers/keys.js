// Keys: the one check for "this key belongs to the focused control" (fieldOwnsKey), the key table's
// names for keys (keyName), and how modes that take the keyboard before the key table (blackout,
// jump, overview) listen and claim a key.

/** The key table's name for a key: "n", "ArrowRight", "Shift+ArrowLeft" (web/keys.py). */
export function keyName(event) {
  const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
  return event.shiftKey && event.key.length > 1 ? `Shift+${key}` : key;
}

const SLIDER_KEYS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);
const NOT_TYPED_INTO = ["button", "checkbox", "radio", "submit"];

/**
 * Whether the key of `event` belongs to the focused control rather than to the talk: every key
 * typed into a text field (input, textarea, select, contenteditable); a slider keeps only its
 * arrows, Home and End, so a presenter's clicker (PageDown/PageUp) still steps the talk.
 */
export function fieldOwnsKey(event) {
  const el = event.target;
  if (!el || !el.tagName) return false;
  const tag = el.tagName;
  if (tag === "INPUT" && el.type === "range") return SLIDER_KEYS.has(event.key);
  return el.isContentEditable || tag === "TEXTAREA" || tag === "SELECT" ||
    (tag === "INPUT" && !NOT_TYPED_INTO.includes(el.type));
}

const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "CapsLock", "AltGraph", "Fn"]);

export function isModifierOnly(event) { return MODIFIERS.has(event.key); }

/** Mark a key as handled: the key table (and any later mode) will not act on it. */
export function claim(event) {
  event.preventDefault();
  event.stopImmediatePropagation();
}

/** Listen on window in the capture phase, so a mode sees a key before the key table (on document). */
export function listenFirst(fn) {
  window.addEventListener("keydown", fn, true);
  return () => window.removeEventListener("keydown", fn, true);
}
