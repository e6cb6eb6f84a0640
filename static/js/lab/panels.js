// The smaller pieces around the map: the tokens as chips, the next tokens with their
// probabilities, the views' tabs (one view at a time on a narrow screen), and the derivation panel
// (drawn by the talk's own views/derivation.js, so a lab cell is explained exactly as a talk cell).
import { number } from "../lib/format.js";
import { renderDerivation } from "../views/derivation.js";
import { quoted, shown } from "./table.js";

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
