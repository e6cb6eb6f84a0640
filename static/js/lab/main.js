// The lab page (/lab): the state lives in the URL (state.js); the form shows it (controls.js); each
// change asks the server (api.js: newest answer wins) and the answer is drawn by the views: the
// head's map (map.js), the head view (lines.js), every layer × head (grid.js), the next tokens and
// the derivation panel (panels.js), and a guided tour's step (tours.js: its state, what to look at,
// its sentence). Typing replaces the history entry; any other change pushes one (a tour's steps
// too), so Back and Forward walk through what the student chose.
import { decodeNumbers, getJson, Latest } from "./api.js";
import { Controls } from "./controls.js";
import { GridView } from "./grid.js";
import { LinesView } from "./lines.js";
import { MapView } from "./map.js";
import { Panel, renderNext, renderTokens, Sheet, Tabs, TourPanel } from "./panels.js";
import { cellRequest, clamp, MODEL_LIMITS, parse, request, same, serialize } from "./state.js";
import { lookAt, tourState, TOURS } from "./tours.js";

// ms after the last key stroke (debounce). The illustrative chain answers in a few ms, so it is
// asked at once (a newer key stroke aborts the request in flight); the model takes tens to hundreds
// of ms and runs one text at a time: a key stroke while it is idle asks at once, one while it is
// busy waits for a pause in the typing (and api.js keeps at most one of its requests in flight,
// sending only the newest that waited).
const TYPING_DELAY = { illustrative: 0, model: 40 };
const SLOW_MS = 400; // a model answer slower than this gets a "reading" line
const URL_DELAY = 150; // ms: the URL follows the typing at this pace
const LABELS = { weights: "A = softmax(S/√d_k + M)", masked: "S/√d_k + M", scores: "S = Q·Kᵀ" };

const root = document.getElementById("lab");
const $ = (id) => document.getElementById(id);

class Lab {
  constructor() {
    this.controls = new Controls($("lab-form"));
    this.limits = MODEL_LIMITS;
    this.modelAvailable = true;
    this.state = clamp(parse(location.search));
    this.answer = null; // {state, body}: what is drawn
    this.map = new MapView({ stage: $("lab-map-stage"), svgEl: $("lab-map"), canvas: $("lab-map-cells"),
      ghost: $("lab-map-ghost"), readout: $("lab-map-readout"), tableBox: $("lab-table-box") }, (r, c, el) => this.explain(r, c, el));
    this.lines = new LinesView({ stage: $("lab-lines-stage"), svgEl: $("lab-lines"), canvas: $("lab-lines-canvas"),
      readout: $("lab-readout") });
    this.grid = new GridView($("lab-grid"), (layer, head) => this.openHead(layer, head));
    this.tabs = new Tabs(root);
    this.panel = new Panel(document.body);
    this.sheet = new Sheet($("lab-form"), $("lab-sheet-toggle"));
    this.tour = new TourPanel($("lab-tour"), {
      back: () => this.tourStep(-1), next: () => this.tourStep(1), leave: () => this.leaveTour() });
    this.why = ""; // why the illustrative chain is shown when the model was asked for
    this.compute = new Latest((answer, job) => this.paint(answer, job));
    this.cells = new Latest((answer, job) => this.showCell(answer, job));
  }

  start() {
    this.tabs.show("map");
    this.controls.write(this.state);
    this.tour.show(this.state);
    history.replaceState(null, "", serialize(this.state));
    this.bind();
    this.probeModel();
    this.ask(0);
  }

  bind() {
    const form = $("lab-form");
    form.addEventListener("submit", (e) => e.preventDefault());
    $("lab-text").addEventListener("input", () => this.changed({ typing: true }));
    form.addEventListener("change", (e) => { if (e.target.id !== "lab-text") this.changed({}); });
    // The map's kind (in the map's own heading) and the output temperature (in the next-token view)
    // belong to the form (form="lab-form") but sit outside it: their events do not pass through it.
    document.querySelector("#view-map .lab-maps").addEventListener("change", () => this.changed({}));
    const nextT = $("lab-next-temperature");
    nextT.addEventListener("change", () => this.changed({}));
    for (const id of ["lab-temperature", "lab-layer", "lab-next-temperature"]) {
      $(id).addEventListener("input", () => this.changed({ typing: true }));
    }
    for (const b of document.querySelectorAll(".tour-chip[data-tour]")) {
      b.addEventListener("click", () => this.startTour(b.dataset.tour));
    }
    $("lab-table-toggle").addEventListener("click", (e) => {
      const on = e.currentTarget.getAttribute("aria-pressed") !== "true";
      e.currentTarget.setAttribute("aria-pressed", String(on));
      e.currentTarget.textContent = on ? "Hide the table" : "Table";
      this.map.toggleTable(on);
    });
    window.addEventListener("popstate", () => this.go(clamp(parse(location.search), this.limits)));
    document.addEventListener("keydown", (e) => {
      if (e.key !== "Escape") return;
      if (this.panel.open) this.panel.close();
      else if (this.sheet.open) this.sheet.close(true);
    });
    document.addEventListener("click", (e) => {
      if (this.panel.open && !this.panel.el.contains(e.target) && e.target.id !== "lab-map-cells") this.panel.close();
    });
    // The map box grows with the sentence (its height follows the map): only a new width, the one
    // size the views are drawn for, draws them again; otherwise every answer would be drawn twice.
    new ResizeObserver(() => { if (String(this.widths()) !== String(this.drawnFor)) this.redraw(); })
      .observe(document.querySelector(".map-box"));
    window.addEventListener("resize", () => this.redraw());
    // What sits above the hero row changes height when the bar wraps, the tour shows or its sentence
    // wraps: measured then (after layout), never per answer.
    const above = new ResizeObserver(() => this.fitHero());
    for (const el of [".lab-top", ".lab-controls", "#lab-tour", ".lab-status"]) above.observe(document.querySelector(el));
  }

  async probeModel() {
    const { ok, status, body } = await getJson("/api/model").catch(() => ({ ok: false, status: 0, body: {} }));
    if (ok) {
      this.limits = { layers: body.layers, heads: body.heads, kvHeads: body.kv_heads };
      this.controls.setModel(this.limits);
      this.controls.setModelAvailable(true, "");
      this.controls.write(this.state);
      if (!body.loaded && this.state.source === "model" && !this.answer) {
        this.status("SmolLM2-135M is loading its weights: a few seconds, once.");
      }
      return;
    }
    this.modelAvailable = false;
    const why = body?.message ?? `GET /api/model answered ${status}`;
    this.controls.setModelAvailable(false, `The real model is not installed here, so only the illustrative chain ` +
      `works. To add it: ${why.replace(/^model: /, "")}.`);
    if (this.state.source === "model") {
      this.why = "the real model is not installed here (see Controls)";
      this.go({ ...this.state, source: "illustrative", head: 0, tour: null }, "replace");
    }
  }

  /** The student changed the form: typing replaces the history entry, anything else adds one. */
  changed({ typing }) {
    const next = clamp(this.controls.read(this.state), this.limits);
    if (typing && same(next, this.state)) return;
    this.go(next, typing ? "replace" : "push", typing);
  }

  /** Show `state`: the form, the URL (`how`: push, replace, or nothing for Back/Forward), the answer. */
  go(state, how = null, typing = false) {
    const sourceChanged = state.source !== this.state.source;
    this.state = state;
    this.controls.write(state);
    this.writeUrl(state, how, typing);
    this.panel.close();
    this.tour.show(state);
    if (sourceChanged && !["map", "lines"].includes(root.dataset.view)) this.tabs.show("map");
    this.ask(typing && this.compute.busy ? TYPING_DELAY[state.source] : 0);
  }

  /** Push or replace the history entry. While typing the entry is replaced at most every
   * URL_DELAY ms (browsers throttle pages that rewrite history on every key stroke); a pending
   * rewrite is written before any push, so Back returns to exactly what was typed. */
  writeUrl(state, how, typing) {
    clearTimeout(this.urlTimer);
    if (how === "replace" && typing) {
      this.pendingUrl = serialize(state);
      this.urlTimer = setTimeout(() => this.flushUrl(), URL_DELAY);
      return;
    }
    if (how === "push") {
      this.flushUrl();
      history.pushState(null, "", serialize(state));
    } else if (how === "replace") {
      history.replaceState(null, "", serialize(state));
    }
    this.pendingUrl = null;
  }

  flushUrl() {
    if (this.pendingUrl && this.pendingUrl !== location.search) history.replaceState(null, "", this.pendingUrl);
    this.pendingUrl = null;
  }

  /** A guided tour from its first step (each step is a history entry of its own). */
  startTour(name) {
    this.sheet.close();
    this.go(clamp(tourState(this.state, name, 1), this.limits), "push");
  }

  tourStep(by) {
    const { tour, step } = this.state;
    const to = Math.max(1, Math.min(TOURS[tour].steps.length, step + by));
    this.go(clamp(tourState(this.state, tour, to), this.limits), "push");
  }

  /** Leave the tour where it is: the state of its step stays, without the tour. */
  leaveTour() {
    this.go({ ...this.state, tour: null, step: 1 }, "push");
    document.querySelector(".tour-chip")?.focus({ preventScroll: true });
  }

  /** The hero row fills the screen under the bar, the tour and the status (a CSS variable: the
   * height above it, measured when the window or the tour's panel changes, never per answer). */
  fitHero() {
    const views = document.querySelector(".lab-views");
    const top = `${Math.round(views.getBoundingClientRect().top + window.scrollY)}px`;
    if (this.heroTop !== top) document.documentElement.style.setProperty("--hero-top", this.heroTop = top);
  }

  openHead(layer, head) {
    this.go({ ...this.state, layer, head }, "push");
    if (this.tabs.visible().length) this.tabs.show("map"); // narrow screen: one view at a time
  }

  ask(delay) {
    if (!this.state.text.trim()) {
      this.compute.cancel();
      this.status("Type a sentence to see its attention.");
      return;
    }
    const [url, body] = request(this.state);
    root.setAttribute("aria-busy", "true");
    clearTimeout(this.slowTimer);
    if (this.state.source === "model") { // a model run takes a moment: say so if it does
      this.slowTimer = setTimeout(() => this.status("SmolLM2-135M is reading the sentence…"), SLOW_MS);
    }
    this.compute.ask({ url, body, state: this.state, serial: this.state.source === "model" }, delay);
  }

  status(text, error = false) {
    const el = $("lab-status");
    el.textContent = text;
    el.classList.toggle("error", error);
  }

  paint(answer, job) {
    root.setAttribute("aria-busy", "false");
    clearTimeout(this.slowTimer);
    if (!answer.ok) {
      const why = String(answer.body?.message ?? answer.status).replace(/^body: Value error, /, "");
      this.status(`${answer.status === 422 ? "Cannot compute this" : "No answer"}: ${why}`, true);
      return;
    }
    this.answer = { state: job.state, body: decodeNumbers(answer.body) };
    this.redraw();
    const { state, body } = this.answer;
    const n = body.tokens.length;
    $("lab-count").textContent = `${n} of 64 tokens`;
    this.status(state.source === "model"
      ? `${n} tokens through SmolLM2-135M · layer ${state.layer}, head ${state.head} (shares K/V head ${body.kv_head})`
      : `${n} tokens · illustrative chain (seeded random weights${this.why ? `: ${this.why}` : ""}), ` +
        `d_model ${state.d_model}, head ${state.head} of ${state.heads}`);
    root.dataset.painted = serialize(state);
    root.dispatchEvent(new CustomEvent("labpainted", { detail: { seq: job.seq, state } }));
  }

  /** [map width, map height, head view width]: the sizes the two are drawn for. */
  widths() {
    const map = document.querySelector(".map-box");
    const oneView = this.tabs.visible().length > 0; // a phone: the map sets its box's height, not the box
    return [map.clientWidth, oneView ? 0 : map.clientHeight, document.querySelector(".lines-box").clientWidth];
  }

  /** Draw the answer on screen (again after a resize). */
  redraw() {
    if (!this.answer) return;
    const { state, body } = this.answer;
    const head = state.source === "model" ? body : body.per_head[state.head];
    // Sizes read before anything is written: a read after a write lays the page out there and then.
    const [mapWidth, boxHeight, linesWidth] = this.drawnFor = this.widths();
    // The hero layout gives the map box its height; one view at a time (a phone) lets the map set it.
    const mapHeight = boxHeight ? Math.max(160, boxHeight) : Math.max(320, window.innerHeight * 0.62);
    renderTokens($("lab-tokens"), body.tokens);
    document.querySelector(".map-name").textContent = LABELS[state.map];
    document.querySelector(".map-name").className = `map-name kind-${state.map === "weights" ? "weights" : "scores"}`;
    document.querySelector(".map-where").textContent = state.source === "model"
      ? `layer ${state.layer} · head ${state.head}` : `head ${state.head}`;
    const look = state.tour ? lookAt(state.tour, state.step, body.tokens) : null;
    this.map.render({ tokens: body.tokens, values: head[state.map], name: state.map, label: LABELS[state.map],
      kind: state.map === "weights" ? "weights" : "scores", masked: head.masked,
      which: `${state.source}|${state.layer}|${state.head}|${state.map}`, look }, mapWidth, mapHeight);
    this.lines.render({ tokens: body.tokens, weights: head.weights }, linesWidth);
    if (look?.row !== undefined) this.lines.focus(look.row);
    if (state.source === "model") {
      if (body.grid) this.grid.render(body.grid, body.kv_heads, [state.layer, state.head]);
      renderNext($("lab-next"), body.next_tokens);
    }
  }

  explain(row, col, el) {
    if (!this.answer || !same(this.answer.state, this.state)) return;
    const [url, body] = cellRequest(this.state, this.state.map, row, col);
    this.cells.ask({ url, body, el, state: this.state, serial: this.state.source === "model" });
  }

  showCell(answer, job) {
    if (!same(job.state, this.state)) return;
    if (!answer.ok) { this.status(`No derivation: ${answer.body?.message ?? answer.status}`, true); return; }
    this.panel.show(answer.body, job.el);
  }
}

const lab = new Lab();
lab.start();
window.attentionLab = lab; // a handle for tests and the browser console; no module reads it
