// Roving focus for a group of controls: one Tab stop (the current item has tabindex 0, the others
// -1); the arrows, Home and End move the focus inside the group (WAI-ARIA authoring practices). The
// group carries `data-arrows`, so the talk's key table leaves those keys to it (controllers/keys.js).

/** Make `items` (in order) the group's stops, `current` the one Tab reaches. */
export function setRoving(items, current) {
  items.forEach((el, k) => el.setAttribute("tabindex", k === current ? "0" : "-1"));
}

const STEP = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };

/**
 * A one-dimensional group: arrows move through `items()`; `onMove(index)` runs for the item that
 * receives focus (e.g. to select it). Returns the keydown listener, bound to `group`.
 */
export function rovingLine(group, items, onMove = null) {
  group.dataset.arrows = "line";
  const listener = (event) => {
    const list = items();
    const at = list.indexOf(event.target.closest?.("[tabindex]"));
    if (at < 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    let to = null;
    if (event.key in STEP) to = (at + STEP[event.key] + list.length) % list.length;
    else if (event.key === "Home") to = 0;
    else if (event.key === "End") to = list.length - 1;
    if (to === null) return;
    event.preventDefault();
    setRoving(list, to);
    list[to].focus({ preventScroll: true });
    onMove?.(to);
  };
  group.addEventListener("keydown", listener);
  return listener;
}
