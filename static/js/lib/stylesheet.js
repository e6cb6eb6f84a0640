// Style sheets a page needs only after its first paint (the overlays, the rooms, reading on a
// phone): added to <head> by the code that needs them, which waits for them to apply before it
// draws anything they style (no flash of unstyled content). URLs are relative to this module, so a
// static export (any sub-path) finds them as the server does.
const added = new Map(); // file name → Promise, resolved once the sheet applies

/** Load static/css/`name` (once) and resolve when it applies; a sheet already in the page resolves
 * at once. A sheet that fails to load resolves too: the page works, less styled. */
export function stylesheet(name) {
  if (!added.has(name)) {
    const href = new URL(`../../css/${name}`, import.meta.url).href;
    const present = [...document.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === href);
    added.set(name, present ? Promise.resolve() : new Promise((resolve) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = href;
      link.addEventListener("load", () => resolve(), { once: true });
      link.addEventListener("error", () => { console.warn(`style sheet ${name} did not load`); resolve(); }, { once: true });
      document.head.append(link);
    }));
  }
  return added.get(name);
}

/** Every sheet of `names`, once all apply. */
export const stylesheets = (names) => Promise.all(names.map(stylesheet));
