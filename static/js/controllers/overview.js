// Overview (O; Esc or O again to leave): a grid of slide thumbnails with their titles. Arrows move
// the selection, Enter (or a click) jumps there, the current slide is marked. Thumbnails are
// copies of the slides' own shells with the slide's last step drawn into them, so they show what
// the audience will see, not a screenshot.
import { STAGE_W } from "../lib/stage-size.js";
import { drawFrame } from "../views/frame.js";
import { holdPage } from "../views/modal.js";
import { buildOverview, markOverview } from "../views/overview.js";
import { Controller } from "./controller.js";
import { claim, fieldOwnsKey, listenFirst } from "./keys.js";

export class OverviewController extends Controller {
  /** `slidesFrom`: the element holding the slide <section>s to copy; `host`: where the grid goes. */
  constructor(player, { slidesFrom, host, frames }) {
    super(player);
    this.slidesFrom = slidesFrom;
    this.frames = frames;
    this.panel = document.createElement("div");
    this.panel.className = "overview still";
    this.panel.id = "overview";
    this.panel.setAttribute("role", "dialog");
    this.panel.setAttribute("aria-label", "Overview of every slide");
    this.panel.setAttribute("aria-modal", "true");
    this.panel.hidden = true;
    host.appendChild(this.panel);
    this.host = host;
    this.release = null;
    this.items = [];
    this.selected = 1;
    player.register("overview", () => this.player.set({ overview: !this.player.state.overview }));
    this._onClose = () => this.player.set({ overview: false });
    this._onKey = (e) => this.onKey(e);
    this._onState = (e) => this.show(e.detail.state);
    this._onResize = () => this.fit();
  }

  bind() {
    super.bind();
    this.player.addEventListener("statechange", this._onState);
    this.player.addEventListener("close", this._onClose);
    window.addEventListener("resize", this._onResize);
    this.stopKeys = listenFirst(this._onKey);
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onState);
    this.player.removeEventListener("close", this._onClose);
    window.removeEventListener("resize", this._onResize);
    this.stopKeys?.();
  }

  get open() { return !this.panel.hidden; }

  build() {
    const built = buildOverview(this.panel, this.player.slides, this.slidesFrom);
    built.forEach(({ button, copy }, i) => {
      const slide = this.player.slides[i];
      button.addEventListener("click", () => this.choose(i + 1));
      if (!copy) return;
      this.frames.load(slide.id)
        .then((frames) => drawFrame(copy, frames[frames.length - 1]))
        .catch((err) => console.warn(err.message));
    });
    this.items = built.map(({ button }) => button);
  }

  fit() {
    if (!this.open || !this.items.length) return;
    const width = this.items[0].querySelector(".thumb").clientWidth;
    this.panel.style.setProperty("--thumb-scale", String(width / STAGE_W));
  }

  show(state) {
    if (state.overview === this.open) return;
    if (!state.overview) {
      this.panel.hidden = true;
      this.release?.();
      this.release = null;
      return;
    }
    if (!this.items.length) this.build();
    this.release = holdPage(this.host, this.panel);
    this.panel.hidden = false;
    this.fit();
    this.update(state);
    this.select(state.slide);
  }

  update(state) {
    markOverview(this.items, { current: state.slide });
  }

  select(n) {
    this.selected = Math.min(Math.max(1, n), this.items.length);
    markOverview(this.items, { selected: this.selected });
    const el = this.items[this.selected - 1];
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }

  columns() {
    const top = this.items[0].offsetTop;
    const n = this.items.findIndex((el) => el.offsetTop !== top);
    return n < 0 ? this.items.length : n;
  }

  choose(n) {
    this.player.set({ overview: false });
    this.player.go(n, 1);
  }

  onKey(event) {
    if (!this.player.state.overview || fieldOwnsKey(event)) return;
    if (event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: this.columns(), ArrowUp: -this.columns() };
    if (event.key in moves) {
      claim(event);
      this.select(this.selected + moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      claim(event);
      this.choose(this.selected);
    }
  }
}
