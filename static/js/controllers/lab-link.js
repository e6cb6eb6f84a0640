// A step that names a lab sentence (the deck's `lab:` field) shows a link on the stage, under the
// caption: "Try it in the lab", opening /lab with that sentence (and source, layer, head). The link
// itself is rendered by the server inside the step's entry (templates/_partials/_steps.html, read
// without scripts too); this controller shows the current step's link in the caption bar.
import { Controller } from "./controller.js";

export class LabLinkController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.bar = root.querySelector(".caption-bar");
    this.link = document.createElement("a");
    this.link.className = "stage-lab-link";
    this.link.hidden = true;
    this.bar?.append(this.link);
  }

  update(state) {
    const slide = this.player.slides[state.slide - 1];
    const section = this.root.querySelector(`.slide[data-slide-id="${CSS.escape(slide.id)}"]`);
    const source = section?.querySelector(`.step[data-step="${state.step}"] .step-lab`);
    this.link.hidden = !source;
    if (!source) return;
    this.link.href = source.getAttribute("href");
    this.link.textContent = `${source.textContent} →`;
  }
}
