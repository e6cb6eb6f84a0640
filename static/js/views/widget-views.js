// Imports every widget view so each registers itself with views/widgets.js.
// Add one line per new widget module.
