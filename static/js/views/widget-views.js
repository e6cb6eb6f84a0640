// Imports every widget view so each registers itself with views/widgets.js.
// Add one line per new widget module.
import "./dense.js";
import "./flow.js";
import "./growth.js";
import "./heads.js";
import "./stack.js";
import "./tokens.js";
import "./cards.js";
import "./derivation.js";
import "./equation.js";
import "./flash.js";
import "./histogram.js";
import "./pipeline.js";
import "./rnn.js";
import "./slider.js";
import "./token-picker.js";
import "./weight-bars.js";
