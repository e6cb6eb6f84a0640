// The smaller pieces around the map: the tokens as chips, the next tokens with their
// probabilities, the views' tabs (one view at a time on a narrow screen), the controls' sheet (a
// phone), the guided tour's panel (tours.js), and the derivation panel
// (drawn by the talk's own views/derivation.js, so a lab cell is explained exactly as a talk cell).
import { number } from "../lib/format.js";
import { renderDerivation } from "../views/derivation.js";
import { quoted, shown } from "./table.js";
import { TOURS } from "./tours.js";

/** A token as a chip: its leading space as a middle dot, so " dog" and "dog" differ visibly. */
function tokenText(t) { return shown(t).replace(/^ /, "\u00b7"); }

export function renderTokens(list, tokens) {
  list.replaceChildren(...tokens.map((t, i) => {
    const li = document.createElement("li");
    li.className = "token-pill";
    li.title = `token ${i}`;
    li.textContent = tokenText(t);
    return li;
  }));
}

export function renderNext(list, next) {
  list.replaceChildren(...next.map((t) => {
    const li = document.createElement("li");
    const word = document.createElement("span");
    word.className = "next-token";
    word.textContent = quoted(t.token);
    const bar = document.createElement("span");
    bar.className = "next-bar";
    const fill = document.createElement("span");
    fill.style.width = `${Math.max(0.5, t.p * 100)}%`;
    bar.append(fill);
    const p = document.createElement("span");
    p.className = "next-p";
    p.textContent = `${number(t.p * 100, 1)} %`;
    li.append(word, bar, p);
    return li;
  }));
}

export class Tabs {
  constructor(root) {
    this.root = root;
    this.tabs = [...root.querySelectorAll('[role="tab"]')];
    for (const tab of this.tabs) {
      tab.addEventListener("click", () => this.show(tab.dataset.view, true));
      tab.addEventListener("keydown", (e) => this.key(e, tab));
    }
  }

  visible() { return this.tabs.filter((t) => t.offsetParent !== null && !t.hidden); }

  show(view, focus = false) {
    this.root.dataset.view = view;
    for (const tab of this.tabs) {
      const on = tab.dataset.view === view;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      if (on && focus) tab.focus();
    }
  }

  key(e, tab) {
    const tabs = this.visible();
    const i = tabs.indexOf(tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined || !tabs.length) return;
    e.preventDefault();
    this.show(tabs[(next + tabs.length) % tabs.length].dataset.view, true);
  }
}

export class Panel {
  constructor(host) {
    this.el = document.createElement("aside");
    this.el.className = "derivation-panel lab-panel";
    this.el.setAttribute("role", "dialog");
    this.el.setAttribute("aria-labelledby", "derivation-title"); // the title views/derivation.js writes
    this.el.tabIndex = -1;
    this.el.hidden = true;
    this.from = null;
    host.append(this.el);
  }

  get open() { return !this.el.hidden; }

  /** Show `answer` (POST …/derivation) for the cell element `from`. */
  show(answer, from) {
    const tensor = { name: answer.tensor, label: answer.label, derivation: answer.derivation };
    renderDerivation(this.el, tensor, answer.derivation.cells[0], () => this.close());
    this.from = from;
    this.el.hidden = false;
    from?.classList.add("explained");
    this.el.focus({ preventScroll: true }); // as in the talk: the dialog takes the focus, Esc gives it back
  }

  close() {
    if (!this.open) return;
    this.el.hidden = true;
    const from = this.from;
    this.from = null;
    from?.classList.remove("explained");
    if (from && (this.el.contains(document.activeElement) || document.activeElement === document.body)) {
      from.focus({ preventScroll: true });
    }
  }
}

/** On a phone the controls are a sheet over the foot of the screen, opened by the header's button
 * (the map comes first); on a wider screen they are a bar and the button is hidden. */
export class Sheet {
  constructor(form, toggle) {
    Object.assign(this, { form, toggle });
    toggle.addEventListener("click", () => (this.open ? this.close(true) : this.show()));
  }

  get open() { return this.form.classList.contains("open"); }

  show() {
    this.form.classList.add("open");
    this.toggle.setAttribute("aria-expanded", "true");
    this.form.querySelector("#lab-text").focus({ preventScroll: true });
  }

  close(focus = false) {
    if (!this.open) return;
    this.form.classList.remove("open");
    this.toggle.setAttribute("aria-expanded", "false");
    if (focus) this.toggle.focus({ preventScroll: true });
  }
}

/** The guided tour's panel: its name, the step, the step's one sentence, Back, Next, Leave. */
export class TourPanel {
  constructor(el, { back, next, leave }) {
    this.el = el;
    this.at = "";
    el.querySelector("#lab-tour-back").addEventListener("click", back);
    el.querySelector("#lab-tour-next").addEventListener("click", next);
    el.querySelector("#lab-tour-leave").addEventListener("click", leave);
  }

  /** Show the tour step of `state` (or hide the panel); true when the panel appeared or went. */
  show(state) {
    const was = !this.el.hidden;
    this.el.hidden = !state.tour;
    this.el.closest(".lab").classList.toggle("touring", Boolean(state.tour));
    for (const b of document.querySelectorAll(".tour-chip[data-tour]")) {
      b.setAttribute("aria-pressed", String(b.dataset.tour === state.tour));
    }
    if (!state.tour) { this.at = ""; return was; }
    const tour = TOURS[state.tour];
    const count = tour.steps.length;
    this.el.dataset.tour = state.tour;
    this.el.dataset.step = String(state.step);
    this.el.querySelector(".tour-name").textContent = tour.name;
    this.el.querySelector(".tour-step").textContent = `step ${state.step} of ${count}`;
    this.el.querySelector(".tour-say").textContent = tour.steps[state.step - 1].say;
    this.el.querySelector("#lab-tour-back").disabled = state.step === 1;
    const next = this.el.querySelector("#lab-tour-next");
    next.disabled = state.step === count;
    next.textContent = state.step === count ? "The end" : "Next ›";
    if (next.disabled && document.activeElement === next) this.el.querySelector("#lab-tour-leave").focus();
    const at = `${state.tour}/${state.step}`;
    const moved = this.at !== at;
    this.at = at;
    return !was || moved;
  }
}
