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

const PRESS_KEYS = new Set([" ", "Enter"]);
const ARROWS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End"]);

/**
 * Whether the key belongs to a focused control that is not a text field: Space and Enter press a
 * focused button or link (they never step the talk instead); inside a group that moves its focus
 * with the arrows (a token picker, a matrix's cells: `data-arrows` on the group), the arrows, Home
 * and End move there. The presenter's clicker (PageDown/PageUp) always steps.
 */
export function controlOwnsKey(event) {
  const el = event.target;
  if (!el || !el.closest) return false;
  if (PRESS_KEYS.has(event.key) && el.closest("button, a[href], summary, [role='button'], [role='link']")) return true;
  return ARROWS.has(event.key) && !event.shiftKey && Boolean(el.closest("[data-arrows]"));
}

const SHORTCUTS_KEY = "attention-talk-single-keys";

/** Single-character shortcuts (WCAG 2.1.4) are on unless the user turned them off (help overlay). */
export function singleKeysOn() {
  try { return localStorage.getItem(SHORTCUTS_KEY) !== "off"; } catch (e) { return true; }
}

export function setSingleKeys(on) {
  try { localStorage.setItem(SHORTCUTS_KEY, on ? "on" : "off"); } catch (e) { /* storage off */ }
}

/** A key that types one character (a letter, digit or symbol, Space excepted): a single-key shortcut. */
export const isCharacterKey = (event) => event.key.length === 1 && event.key !== " ";

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
