// The print view: every .print-page holds one step's slide shell; draw each page's frame in its
// final state (the .still class turns transitions off), with the frame's caption, size the progress
// bars, then mark the document ready (<html data-ready="1">) so that printing or a test can wait.
import { FrameStore } from "./frames.js";
import { readJson } from "./lib/page-data.js";
import { STAGE_H, STAGE_W } from "./lib/stage-size.js";
import { renderWords } from "./views/caption.js";
import { drawFrame } from "./views/frame.js";

const manifest = readJson("deck-data");
const frames = new FrameStore(manifest.id, manifest.slides);
const pages = [...document.querySelectorAll(".print-page")];

/** One sheet per page, the stage's size: @page cannot read a custom property, so it is written here. */
function pageSize() {
  const sheet = [...document.styleSheets].find((s) => s.href?.endsWith("/static/css/print.css"));
  sheet?.insertRule(`@page { size: ${STAGE_W}px ${STAGE_H}px; margin: 0; }`, sheet.cssRules.length);
}

function fitToScreen() {
  const doc = document.getElementById("print");
  const zoom = Math.min(1, (doc.clientWidth - 32) / STAGE_W);
  document.documentElement.style.setProperty("--print-zoom", String(Math.max(zoom, 0.2)));
}

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

async function render() {
  await Promise.all(manifest.slides.map((s) => frames.load(s.id)));
  const total = pages.length;
  for (const page of pages) {
    const frame = frames.peek(page.dataset.slideId, Number(page.dataset.step));
    if (frame) {
      drawFrame(page.querySelector(".slide"), frame);
      renderWords(page.querySelector(".caption"), null, frame);
    }
    const fill = page.querySelector(".print-progress .progress-bar");
    const n = Number(page.dataset.page);
    if (fill) fill.style.width = `${total > 1 ? ((n - 1) / (total - 1)) * 100 : 100}%`;
  }
  await document.fonts?.ready;
  await nextFrame();
  await nextFrame();
}

pageSize();
fitToScreen();
window.addEventListener("resize", fitToScreen);
render().then(
  () => { document.documentElement.dataset.ready = "1"; },
  (err) => { document.documentElement.dataset.ready = "error"; console.error(`print view: ${err.message}`); },
);
