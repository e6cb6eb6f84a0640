// The controls (a bar above the picture; a sheet on a phone): they show a state (write) and say what
// the student changed (read; a change of the student's own leaves a guided tour where it is). The head
// pickers are radio groups: the illustrative chain's heads, and the model's query heads drawn in
// their key/value groups (heads 0–2 share key/value head 0, and so on).
import { number } from "../lib/format.js";
import { D_MODELS, HEAD_COUNTS } from "./state.js";

function options(select, values) {
  select.replaceChildren(...values.map((v) => {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = String(v);
    return o;
  }));
}

function radio(name, value, text, checked, aria = null) {
  const label = document.createElement("label");
  label.className = "head-chip";
  const input = document.createElement("input");
  Object.assign(input, { type: "radio", name, value: String(value), checked });
  if (aria) input.setAttribute("aria-label", aria);
  label.append(input, document.createTextNode(text));
  return label;
}

/** The form's radios named `name`, those outside it with form="lab-form" too (one alone is no list). */
function radios(form, name) {
  const found = form.elements.namedItem(name);
  return !found ? [] : found instanceof RadioNodeList ? [...found] : [found];
}

export class Controls {
  constructor(form) {
    this.form = form;
    this.el = (id) => form.querySelector(`#${id}`);
    options(this.el("lab-d-model"), D_MODELS);
    options(this.el("lab-heads"), HEAD_COUNTS);
    this.limits = null;
  }

  /** The model's sizes (GET /api/model): the layer slider's range and the grouped head picker. */
  setModel(limits) {
    this.limits = limits;
    this.el("lab-layer").max = String(limits.layers - 1);
    const box = this.el("lab-groups");
    const per = limits.heads / limits.kvHeads;
    box.replaceChildren();
    for (let g = 0; g < limits.kvHeads; g++) {
      const group = document.createElement("div");
      group.className = "kv-group";
      const title = document.createElement("span");
      title.className = "kv-title";
      title.textContent = `share K/V head ${g}`;
      group.append(title);
      for (let h = g * per; h < (g + 1) * per; h++) group.append(radio("model-head", h, `${h}`, false, `head ${h}`));
      box.append(group);
    }
  }

  setModelAvailable(available, hint) {
    const input = this.el("source-model");
    input.disabled = !available;
    for (const b of document.querySelectorAll(".tour-chip[data-tour]")) {
      b.disabled = !available;
      b.title = available ? "" : "The tours need the real model";
    }
    const p = this.el("model-hint");
    p.hidden = available;
    p.textContent = hint;
  }

  write(state) {
    const f = this.form;
    if (this.el("lab-text").value !== state.text) this.el("lab-text").value = state.text;
    for (const r of radios(f, "source")) r.checked = r.value === state.source;
    for (const r of radios(f, "map")) r.checked = r.value === state.map;
    this.el("lab-d-model").value = String(state.d_model);
    this.el("lab-heads").value = String(state.heads);
    this.el("lab-causal").checked = state.causal;
    this.el("lab-temperature").value = String(state.temperature);
    this.el("lab-temperature-out").textContent = number(state.temperature, 2);
    if (document.activeElement !== this.el("lab-seed")) this.el("lab-seed").value = String(state.seed);
    const next = document.getElementById("lab-next-temperature"); // in the next-token view, outside the form
    next.value = String(state.next_temperature);
    document.getElementById("lab-next-temperature-out").textContent = number(state.next_temperature, 2);
    this.el("lab-layer").value = String(state.layer);
    this.el("lab-layer-out").textContent = String(state.layer);
    const picker = this.el("lab-head-picker");
    if (picker.childElementCount !== state.heads) {
      picker.replaceChildren(...Array.from({ length: state.heads }, (_, h) => radio("ill-head", h, `${h}`, false, `head ${h}`)));
    }
    for (const r of [...picker.querySelectorAll("input"), ...this.el("lab-groups").querySelectorAll("input")]) {
      r.checked = Number(r.value) === state.head;
      r.parentElement.classList.toggle("checked", r.checked);
    }
    const lab = f.closest(".lab");
    lab.dataset.source = state.source;
  }

  /** The state the form shows now, from `base` (fields the form lacks stay as they are). */
  read(base) {
    const f = this.form;
    const checked = (name) => radios(f, name).find((r) => r.checked)?.value;
    const source = checked("source") ?? base.source;
    const headName = source === "model" ? "model-head" : "ill-head";
    const seed = Number(this.el("lab-seed").value);
    return {
      ...base, text: this.el("lab-text").value, source, map: checked("map") ?? base.map,
      d_model: Number(this.el("lab-d-model").value), heads: Number(this.el("lab-heads").value),
      causal: this.el("lab-causal").checked, temperature: Number(this.el("lab-temperature").value),
      seed: Number.isInteger(seed) && seed >= 0 && seed <= 2 ** 32 - 1 ? seed : base.seed,
      layer: Number(this.el("lab-layer").value),
      head: Number(checked(headName) ?? base.head),
      next_temperature: Number(document.getElementById("lab-next-temperature").value),
      tour: null, step: 1,
    };
  }
}
