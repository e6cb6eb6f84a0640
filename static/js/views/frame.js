// Draws one frame into a slide <section>: its matrices, operator symbols, notes, widgets and
// counters. The audience stage, the speaker view's previews, the overview's thumbnails and the
// print view all draw through this one function.
import { renderCounters } from "./counters.js";
import { renderTensors } from "./matrix.js";
import { renderSymbols } from "./marks.js";
import { renderTables } from "./tensor-table.js";
import { renderNotes } from "./notes.js";
import { renderWidgets } from "./widget-views.js";

export function drawFrame(section, frame) {
  const canvas = section.querySelector(".canvas");
  // What is new (notes, widgets) enters with the new matrices, after what leaves has left.
  const { enter } = canvas ? renderTensors(canvas, frame.tensors) : { enter: 0 };
  if (canvas) renderSymbols(canvas, frame.symbols || [], enter);
  const layer = section.querySelector(".notes-layer");
  if (layer) renderNotes(layer, frame.notes, enter);
  renderWidgets(section.querySelector(".widget-layer"), frame.widgets, { frame, section, enter });
  renderCounters(section.querySelector(".counters"), frame.counters);
  renderTables(section, frame.tensors);
}
