// Overview (O; Esc or O again to leave): a grid of slide thumbnails with their titles. Arrows move
// the selection, Enter (or a click) jumps there, the current slide is marked. Thumbnails are
// copies of the slides' own shells with the slide's last step drawn into them, so they show what
// the audience will see, not a screenshot.
import { drawFrame } from "../views/stage.js";
import { Controller } from "./controller.js";
import { claim, inTextField, listenFirst } from "./modal-keys.js";

const STAGE_W = 1600;

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
    this.panel.hidden = true;
    host.appendChild(this.panel);
    this.items = [];
    this.selected = 1;
    player.register("overview", () => this.player.set({ overview: !this.player.state.overview }));
    const closeOthers = player.actions.get("close");
    player.register("close", () => { closeOthers?.(); this.player.set({ overview: false }); });
    this._onKey = (e) => this.onKey(e);
    this._onState = (e) => this.show(e.detail.state);
    this._onResize = () => this.fit();
  }

  bind() {
    super.bind();
    this.player.addEventListener("statechange", this._onState);
    window.addEventListener("resize", this._onResize);
    this.stopKeys = listenFirst(this._onKey);
    return this;
  }

  unbind() {
    super.unbind();
    this.player.removeEventListener("statechange", this._onState);
    window.removeEventListener("resize", this._onResize);
    this.stopKeys?.();
  }

  get open() { return !this.panel.hidden; }

  build() {
    const list = document.createElement("ol");
    list.className = "overview-grid";
    this.player.slides.forEach((slide, i) => {
      const n = i + 1;
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "overview-item";
      button.dataset.slide = String(n);
      button.setAttribute("aria-label", `${n}: ${slide.title}`);
      const thumb = document.createElement("div");
      thumb.className = "thumb";
      thumb.setAttribute("aria-hidden", "true");
      const stage = document.createElement("div");
      stage.className = "thumb-stage";
      const original = this.slidesFrom.querySelector(`[data-slide-id="${CSS.escape(slide.id)}"]`);
      if (original) {
        const copy = original.cloneNode(true);
        copy.removeAttribute("id");
        copy.classList.add("active");
        copy.inert = true;
        stage.appendChild(copy);
        this.frames.load(slide.id)
          .then((frames) => drawFrame(copy, frames[frames.length - 1]))
          .catch((err) => console.warn(err.message));
      }
      thumb.appendChild(stage);
      const title = document.createElement("span");
      title.className = "thumb-title";
      const num = document.createElement("span");
      num.className = "thumb-number";
      num.textContent = String(n);
      title.append(num, document.createTextNode(slide.title));
      button.append(thumb, title);
      button.addEventListener("click", () => this.choose(n));
      li.appendChild(button);
      list.appendChild(li);
      this.items.push(button);
    });
    const hint = document.createElement("p");
    hint.className = "overview-hint";
    hint.textContent = "Overview · arrows move · Enter goes there · Esc or O returns";
    this.panel.append(hint, list);
  }

  fit() {
    if (!this.open || !this.items.length) return;
    const width = this.items[0].querySelector(".thumb").clientWidth;
    this.panel.style.setProperty("--thumb-scale", String(width / STAGE_W));
  }

  show(state) {
    if (state.overview === this.open) return;
    if (!state.overview) { this.panel.hidden = true; return; }
    if (!this.items.length) this.build();
    this.panel.hidden = false;
    this.fit();
    this.update(state);
    this.select(state.slide);
  }

  update(state) {
    for (const item of this.items) {
      const current = Number(item.dataset.slide) === state.slide;
      item.classList.toggle("current", current);
      if (current) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
    }
  }

  select(n) {
    this.selected = Math.min(Math.max(1, n), this.items.length);
    for (const item of this.items) item.classList.toggle("selected", Number(item.dataset.slide) === this.selected);
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
    if (!this.player.state.overview || inTextField(event)) return;
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
