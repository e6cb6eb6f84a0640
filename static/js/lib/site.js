// Where the talk's files are. Served by attention-talk, every URL is absolute ("/api/…"). In a
// static export (attention-talk export --format site) the <html> element carries data-root, the
// relative way up to the site's root (e.g. "../../"), and the frames are plain files
// (api/decks/<deck>/slides/<slide>/frames.json), so the folder plays from any static host and any
// sub-path.
const root = globalThis.document?.documentElement.dataset.root;  // none outside a page (Node tests)

/** True in a static export: no API behind the page (no lab recompute, no rooms). */
export const staticSite = root !== undefined;

/** The URL of one slide's frames, or (`what` = "derivations") of its cells' derivations. */
export function framesUrl(deckId, slideId, what = "frames") {
  const path = `api/decks/${encodeURIComponent(deckId)}/slides/${encodeURIComponent(slideId)}/${what}`;
  return staticSite ? `${root}${path}.json` : `/${path}`;
}

/** The URL of a page of the talk: "" (the talk), "presenter", "print". */
export function talkUrl(deckId, page = "") {
  const path = `talk/${encodeURIComponent(deckId)}${page ? `/${page}` : ""}`;
  return staticSite ? `${root}${path}/` : `/${path}`;
}

/** The page of the export that says what needs the server (the lab, live rooms, the API). */
export function needsServerUrl() {
  return `${root ?? "/"}needs-server.html`;
}

/** A same-site path ("/", "/talk/…", "/lab?…") as this copy of the talk can open it: unchanged
 * when served; in a static export the talk's own pages as files, anything else the needs-server
 * page (the export's site.py rewrites the pages' links the same way). */
export function sitePath(href) {
  if (!staticSite || !href.startsWith("/")) return href;
  const [path, fragment = ""] = href.split("#");
  const tail = fragment ? `#${fragment}` : "";
  if (path === "/" || path === "") return `${root}index.html${tail}`;
  const talk = /^\/talk\/([^/?#]+)(?:\/(presenter|print))?\/?$/.exec(path);
  return talk ? `${talkUrl(decodeURIComponent(talk[1]), talk[2] ?? "")}${tail}` : needsServerUrl();
}
