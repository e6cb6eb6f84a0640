// Draws one frame into a slide <section>: its matrices, operator symbols, notes, widgets and
// counters. The audience stage, the speaker view's previews, the overview's thumbnails and the
// print view all draw through this one function.
import { cancelIdle, idle } from "../lib/idle.js";
import { renderCounters } from "./counters.js";
import { renderTensors } from "./matrix.js";
import { renderSymbols } from "./marks.js";
import { renderNotes } from "./notes.js";
import { renderWidgets } from "./widget-views.js";

const waiting = new WeakMap(); // section → the idle callback that will write its tables

/** The tables for screen readers are written once the step is painted (in idle time), off the
 * key-to-paint path; a newer frame of the same section replaces a pending one. */
function tablesLater(section, tensors) {
  if (waiting.has(section)) cancelIdle(waiting.get(section));
  waiting.set(section, idle(() => {
    waiting.delete(section);
    // Laid out now, in idle time: left to the next frame, the new tables' layout would fall in the
    // frame of the next key pressed soon after. The module itself is fetched then too (not for the
    // first paint); once fetched, each later import resolves at once, in order.
    import("./tensor-table.js").then(({ renderTables }) => {
      if (renderTables(section, tensors)) section.querySelector(":scope > .tensor-tables").lastElementChild?.getBoundingClientRect();
    }, (err) => console.warn(err.message));
  }, { timeout: 500 }));
}

export function drawFrame(section, frame) {
  const canvas = section.querySelector(".canvas");
  // What is new (notes, widgets) enters with the new matrices, after what leaves has left.
  const { enter } = canvas ? renderTensors(canvas, frame.tensors) : { enter: 0 };
  if (canvas) renderSymbols(canvas, frame.symbols || [], enter);
  const layer = section.querySelector(".notes-layer");
  if (layer) renderNotes(layer, frame.notes, enter);
  renderWidgets(section.querySelector(".widget-layer"), frame.widgets, { frame, section, enter });
  renderCounters(section.querySelector(".counters"), frame.counters);
  tablesLater(section, frame.tensors);
}
