// The derivation panel: a matrix cell that carries a derivation opens it when clicked or given
// Enter or Space (a matrix is one Tab stop; the arrows move between its cells); the panel is a
// named dialog that takes the focus, and gives it back to its cell when its × button or Esc (the
// player's "close" event) closes it; a click elsewhere or a new frame closes it too. The stage owner
// hands over each frame it draws (attach), so the panel knows which tensor and cell an element
// stands for; the panel itself is drawn by views/derivation.js. A frame carries each cell's title
// and value; the terms of its computation come from the frame store (one request per slide, made in
// the idle time after a frame with derivable cells is drawn, so they are there by the time a cell is
// opened).
import { idle } from "../lib/idle.js";
import { createPanel, markDerivable, neighbour, placePanel, renderDerivation } from "../views/derivation.js";
import { finiteAnimations } from "../views/moving.js";
import { Controller } from "./controller.js";
// The talk page's question panel comes with it (loaded after the first paint, as this is; main.js,
// counted in the first paint's bytes, stays as it was): controllers/quiz.js.
import { QuizController } from "./quiz.js";

export class DerivationController extends Controller {
  constructor(player, root, frames = null) {
    super(player);
    this.root = root;
    this.frames = frames;
    this.frame = null;
    this.stage = root.querySelector(".stage");
    this.panel = null;
    this.cells = new Map(); // <g class="cell"> → {tensor, cell}, for the frame on the stage
    this.openFor = null;
    this._close = () => this.close({ refocus: true });
    this._onClick = (e) => {
      const cell = this.cellOf(e.target);
      if (cell) this.open(cell);
      else if (this.panel && !this.panel.hidden && !this.panel.contains(e.target)) this.close();
    };
    this._onKey = (e) => this.onKey(e);
    this.quiz = new QuizController(player, root, frames);
  }

  bind() {
    super.bind();
    this.player.addEventListener("close", this._close);
    document.addEventListener("click", this._onClick);
    document.addEventListener("keydown", this._onKey);
    this.quiz.bind();
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("close", this._close);
    document.removeEventListener("click", this._onClick);
    document.removeEventListener("keydown", this._onKey);
    this.quiz.unbind();
  }

  onKey(event) {
    const cell = this.cellOf(event.target);
    if (!cell || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Enter" || event.key === " ") {
      this.open(cell);
      event.preventDefault();
      return;
    }
    const to = neighbour(cell, event.key, [...this.cells.keys()]);
    if (!to) return;
    event.preventDefault();
    cell.setAttribute("tabindex", "-1");
    to.setAttribute("tabindex", "0");
    to.focus({ preventScroll: true });
  }

  cellOf(target) {
    const cell = target?.closest?.(".cell.derivable");
    return cell && this.cells.has(cell) ? cell : null;
  }

  /** A frame was drawn into `section`: its derivable cells replace the previous frame's. */
  attach(section, frame) {
    this.close();
    this.frame = frame;
    this.cells = markDerivable(section, frame);
    // The slide's terms are fetched in idle time: their response (parsed on the main thread) must
    // not fall between the key and the frame that shows its step. A panel opened before they are
    // in says so and fills in (open).
    if (this.cells.size) idle(() => this.withParts(frame).catch((err) => console.warn(err.message)), { timeout: 300 });
  }

  /** The frame's cells with their parts (fetched once per slide, then filled in place). */
  async withParts(frame) {
    const tensors = frame.tensors.filter((t) => t.derivation?.cells.length);
    if (!this.frames || tensors.every((t) => t.derivation.cells.every((c) => c.parts?.length))) return frame;
    const steps = await this.frames.derivations(frame.slide);
    const byTensor = steps[frame.step - 1] ?? {};
    for (const t of tensors) t.derivation.cells.forEach((c, i) => { c.parts = byTensor[t.name]?.[i] ?? []; });
    return frame;
  }

  /** Open the panel on a cell at once; if the slide's terms are still on the way, the panel says
   * so and fills in when they come (unless another cell or frame took it meanwhile). */
  open(cellEl) {
    const { tensor, cell } = this.cells.get(cellEl);
    if (!this.panel || !this.panel.isConnected) this.panel = createPanel(this.stage);
    const waiting = !cell.parts?.length && this.frame && this.frames;
    this.show(cellEl, tensor, cell, waiting);
    if (!waiting) return;
    const frame = this.frame;
    this.withParts(frame).then(() => {
      if (this.openFor === cellEl && this.frame === frame && !this.panel.hidden) this.show(cellEl, tensor, cell, false);
    }).catch((err) => console.warn(err.message));
  }

  show(cellEl, tensor, cell, waiting) {
    renderDerivation(this.panel, tensor, cell, this._close, { waiting });
    this.panel.hidden = false;
    this.openFor?.classList.remove("explained");
    this.openFor = cellEl;
    cellEl.classList.add("explained");
    placePanel(this.panel, this.stage, cellEl);
    this.placeWhenStill(cellEl);
    if (!this.panel.contains(document.activeElement)) this.panel.focus({ preventScroll: true });
  }

  /** A cell clicked while its slide flies in, or its matrix moves, is measured where it is now:
   * once the motion ends the panel is placed again, against where the cell landed (else it would
   * cover the matrix it was meant to stand beside). */
  placeWhenStill(cellEl) {
    const moving = finiteAnimations(this.stage).filter((a) => a.playState === "running" || a.playState === "paused" || a.pending);
    if (!moving.length) return;
    Promise.all(moving.map((a) => a.finished.catch(() => null))).then(() => {
      if (this.openFor === cellEl && !this.panel.hidden && cellEl.isConnected) placePanel(this.panel, this.stage, cellEl);
    });
  }

  /** Hide the panel; `refocus`: an explicit close (× or Esc) gives the focus back to the cell. */
  close({ refocus = false } = {}) {
    const cell = this.openFor;
    const hadFocus = this.panel && !this.panel.hidden && this.panel.contains(document.activeElement);
    if (this.panel) this.panel.hidden = true;
    cell?.classList.remove("explained");
    this.openFor = null;
    if (refocus && hadFocus && cell?.isConnected) {
      for (const other of this.cells.keys()) if (other.closest(".tensor") === cell.closest(".tensor")) other.setAttribute("tabindex", "-1");
      cell.setAttribute("tabindex", "0");
      cell.focus({ preventScroll: true });
    }
  }
}
