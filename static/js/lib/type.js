// The stage's type scale in stage units (the stage is 1600 wide: at 1280 × 720 one unit is 0.8 CSS
// px), for the views that size text from script. The same numbers are CSS custom properties in
// static/css/talk.css (--type-*); tests/test_type_scale.py keeps the two equal. VISUAL.md §4: figure
// labels, cell numbers and notes at least 22 CSS px (20 inside dense matrices), index numbers 16.
export const TYPE = Object.freeze({
  title: 55,
  caption: 42.5,
  heading: 32,
  label: 28,
  dense: 25,
  index: 20,
});
