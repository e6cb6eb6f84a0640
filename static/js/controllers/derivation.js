// The derivation panel: a matrix cell that carries a derivation opens it when clicked, focused
// (Tab) or given Enter; a click elsewhere, its × button, a new frame or Esc (the player's "close"
// event) closes it. The stage owner hands over each frame it draws (attach), so the panel knows
// which tensor and cell an element stands for; the panel itself is drawn by views/derivation.js.
import { createPanel, markDerivable, placePanel, renderDerivation } from "../views/derivation.js";
import { Controller } from "./controller.js";

export class DerivationController extends Controller {
  constructor(player, root) {
    super(player);
    this.root = root;
    this.stage = root.querySelector(".stage");
    this.panel = null;
    this.cells = new Map(); // <g class="cell"> → {tensor, cell}, for the frame on the stage
    this.openFor = null;
    this._close = () => this.close();
    this._onClick = (e) => {
      const cell = this.cellOf(e.target);
      if (cell) this.open(cell);
      else if (this.panel && !this.panel.hidden && !this.panel.contains(e.target)) this.close();
    };
    this._onFocus = (e) => { const cell = this.cellOf(e.target); if (cell) this.open(cell); };
    this._onKey = (e) => {
      const cell = this.cellOf(e.target);
      if (cell && e.key === "Enter") { this.open(cell); e.preventDefault(); }
    };
  }

  bind() {
    super.bind();
    this.player.addEventListener("close", this._close);
    document.addEventListener("click", this._onClick);
    document.addEventListener("focusin", this._onFocus);
    document.addEventListener("keydown", this._onKey);
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("close", this._close);
    document.removeEventListener("click", this._onClick);
    document.removeEventListener("focusin", this._onFocus);
    document.removeEventListener("keydown", this._onKey);
  }

  cellOf(target) {
    const cell = target?.closest?.(".cell.derivable");
    return cell && this.cells.has(cell) ? cell : null;
  }

  /** A frame was drawn into `section`: its derivable cells replace the previous frame's. */
  attach(section, frame) {
    this.close();
    this.cells = markDerivable(section, frame);
  }

  open(cellEl) {
    const { tensor, cell } = this.cells.get(cellEl);
    if (!this.panel || !this.panel.isConnected) this.panel = createPanel(this.stage);
    renderDerivation(this.panel, tensor, cell, this._close);
    this.panel.hidden = false;
    this.openFor?.classList.remove("explained");
    this.openFor = cellEl;
    cellEl.classList.add("explained");
    placePanel(this.panel, this.stage, cellEl);
  }

  close() {
    if (this.panel) this.panel.hidden = true;
    this.openFor?.classList.remove("explained");
    this.openFor = null;
  }
}
