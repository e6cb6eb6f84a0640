// A step's words in a caption bar: the caption and (where the bar has one) the narration. They
// come from the step's frame (Frame.caption, Frame.narration). A text that does not change is not
// written again, so a live region does not announce the same caption twice.
export function renderWords(captionEl, narrationEl, { caption, narration }) {
  if (captionEl && captionEl.textContent !== caption) captionEl.textContent = caption;
  if (narrationEl && narrationEl.textContent !== narration) narrationEl.textContent = narration;
}
