// Draws one frame into a slide <section>: its matrices, operator symbols, notes, widgets and
// counters. The audience stage, the speaker view's previews, the overview's thumbnails and the
// print view all draw through this one function.
import { renderCounters } from "./counters.js";
import { renderTensors } from "./matrix.js";
import { renderSymbols } from "./marks.js";
import { renderNotes } from "./notes.js";
import { renderWidgets } from "./widget-views.js";

export function drawFrame(section, frame) {
  const canvas = section.querySelector(".canvas");
  if (canvas) renderTensors(canvas, frame.tensors);
  if (canvas) renderSymbols(canvas, frame.symbols || []);
  const layer = section.querySelector(".notes-layer");
  if (layer) renderNotes(layer, frame.notes);
  renderWidgets(section.querySelector(".widget-layer"), frame.widgets, { frame, section });
  renderCounters(section.querySelector(".counters"), frame.counters);
}
