// The widget registry, explicitly: one module per widget kind, each registering its view with
// registerWidget(kind, render) in views/widgets.js. Whoever draws widgets imports renderWidgets
// from here, so every view is registered first. Add one line per new widget module.
import "./cards.js";
import "./dense.js";
import "./equation.js";
import "./flash.js";
import "./flow.js";
import "./growth.js";
import "./head-picker.js";
import "./heads.js";
import "./histogram.js";
import "./link.js";
import "./pipeline.js";
import "./rnn.js";
import "./slider.js";
import "./stack.js";
import "./token-picker.js";
import "./tokens.js";
import "./weight-bars.js";

export { renderWidgets } from "./widgets.js";
