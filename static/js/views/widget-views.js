// The widget registry, explicitly: one module per widget kind, each registering its view with
// registerWidget(kind, render) in views/widgets.js. A view is loaded when a frame first needs it
// (frames.js calls loadWidgetViews before it hands a slide's frames out), so the first paint
// fetches only the views its slide draws; the server modulepreloads those (web/modules.py reads
// this table). Add one line per new widget module: "kind": () => import("./kind.js").
import { stylesheet } from "../lib/stylesheet.js";

const VIEWS = {
  "cards": () => import("./cards.js"),
  "concat": () => import("./concat.js"),
  "dense": () => import("./dense.js"),
  "equation": () => import("./equation.js"),
  "flash": () => import("./flash.js"),
  "flow": () => import("./flow.js"),
  "gqa": () => import("./gqa.js"),
  "growth": () => import("./growth.js"),
  "head-picker": () => import("./head-picker.js"),
  "head-maps": () => import("./head-maps.js"),
  "heads": () => import("./heads.js"),
  "heatmap": () => import("./heatmap.js"),
  "histogram": () => import("./histogram.js"),
  "link": () => import("./link.js"),
  "mask": () => import("./mask.js"),
  "pipeline": () => import("./pipeline.js"),
  "rnn": () => import("./rnn.js"),
  "rope": () => import("./rope.js"),
  "scaling": () => import("./scaling.js"),
  "sizes": () => import("./sizes.js"),
  "slider": () => import("./slider.js"),
  "softmax": () => import("./softmax.js"),
  "stack": () => import("./stack.js"),
  "token-picker": () => import("./token-picker.js"),
  "tokens": () => import("./tokens.js"),
  "weight-bars": () => import("./weight-bars.js"),
};

const loading = new Map(); // kind → Promise of its module
const loaded = new Set(); // the kinds whose views are registered

// The kinds styled by talk.css (chapter 1's diagrams); every other kind is styled by walkthrough.css,
// which the first paint does not fetch: its view waits for that sheet before anything is drawn.
const TALK_STYLED = new Set(["tokens", "stack", "dense", "growth", "flow", "heads"]);
const styled = (kind, load) => (TALK_STYLED.has(kind) ? load() : Promise.all([load(), stylesheet("walkthrough.css")]));

/** Load the views of every widget kind in `frames` (each once); resolves when all are registered.
 * A kind without a view is left to renderWidgets, which says so. */
export function loadWidgetViews(frames) {
  const kinds = new Set(frames.flatMap((f) => (f.widgets ?? []).map((w) => w.type)));
  return Promise.all([...kinds].filter((k) => k in VIEWS).map((k) => {
    if (!loading.has(k)) {
      loading.set(k, styled(k, VIEWS[k]).then(() => { loaded.add(k); },
        (err) => { loading.delete(k); throw err; }));
    }
    return loading.get(k);
  }));
}

/** Whether the views of every widget kind `frame` draws are loaded (a kind without a view counts). */
export function viewsLoaded(frame) {
  return (frame.widgets ?? []).every((w) => !(w.type in VIEWS) || loaded.has(w.type));
}

export { renderWidgets } from "./widgets.js";
