// "link": a heading and one link to another page of this site (e.g. the lab with the deck's sentence
// preloaded), with a line of detail under it. The href is a same-site path checked by the frame model.
import { sitePath } from "../lib/site.js";
import { registerWidget } from "./widgets.js";

function render(root, widget) {
  const { title = "", text = "", href = "/", detail = "" } = widget.data;
  root.replaceChildren();
  const box = document.createElement("div");
  box.className = `link-widget kind-${widget.kind}`;
  const head = document.createElement("h3");
  head.className = "link-title";
  head.textContent = title;
  const a = document.createElement("a");
  a.className = "link-anchor";
  a.href = sitePath(href); // in a static export: the page's file, or the page saying it needs the server
  a.textContent = text;
  box.append(head, a);
  if (detail) {
    const p = document.createElement("p");
    p.className = "link-detail";
    p.textContent = detail;
    box.appendChild(p);
  }
  root.appendChild(box);
}

registerWidget("link", render);
