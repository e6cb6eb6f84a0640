// The lab's whole state, and its one home: the query string. `/lab?text=...&source=model&layer=3&head=5`
// (layer and head 0-based, as in the API) plus the illustrative chain's settings (d_model, heads,
// causal, temperature: the attention's, seed), the model's output softmax temperature
// (next_temperature), the map shown (map=scores|masked|weights) and the guided tour's step
// (tour=induction&step=2). Parsing never throws: a value out of range falls back to its default, so
// any URL opens a working lab. A bare /lab opens on the real model, on a sentence and head where
// attention does something visible (the first tour's; the page falls back to the illustrative chain
// and says why when the model is not installed).
import { TOUR_NAMES, TOURS, tourState } from "./tours.js";

export const MAX_CHARS = 2000;
export const D_MODELS = [8, 16, 32, 64, 128];
export const HEAD_COUNTS = [1, 2, 4, 8];
export const MAPS = ["weights", "masked", "scores"];
export const SOURCES = ["illustrative", "model"];
export const MODEL_LIMITS = { layers: 30, heads: 9, kvHeads: 3 }; // until GET /api/model says otherwise

export const DEFAULTS = Object.freeze({
  text: "She walked along the river and sat down on the bank", source: "model", layer: 0, head: 0, map: "weights",
  d_model: 16, heads: 2, causal: true, temperature: 1, seed: 0, next_temperature: 1, tour: null, step: 1,
});
/** Where a bare URL opens the real model: the head where "bank" reads "river" (tours.js). */
export const MODEL_START = Object.freeze({ layer: 9, head: 2 });

function int(value, lo, hi, fallback) {
  if (value === null || !/^\d+$/.test(value)) return fallback;
  const n = Number(value);
  return n >= lo && n <= hi ? n : fallback;
}

function oneOf(value, options, fallback) {
  const match = options.find((o) => String(o) === value);
  return match === undefined ? fallback : match;
}

function temperature(value, hi = 100) {
  const t = Number(value);
  return value !== null && value !== "" && Number.isFinite(t) && t > 0 && t <= hi ? t : DEFAULTS.temperature;
}

/** The state a query string names (`location.search` or a URLSearchParams). */
export function parse(search) {
  const q = search instanceof URLSearchParams ? search : new URLSearchParams(search);
  const source = oneOf(q.get("source"), SOURCES, DEFAULTS.source);
  const heads = oneOf(q.get("heads"), HEAD_COUNTS, DEFAULTS.heads);
  const text = q.has("text") ? q.get("text").slice(0, MAX_CHARS) : DEFAULTS.text;
  const start = source === "model" && !q.has("text") ? MODEL_START : DEFAULTS;
  const tour = oneOf(q.get("tour"), TOUR_NAMES, null);
  const state = {
    text, source, map: oneOf(q.get("map"), MAPS, DEFAULTS.map),
    layer: int(q.get("layer"), 0, 1023, start.layer),
    head: int(q.get("head"), 0, 1023, start.head),
    next_temperature: temperature(q.get("next_temperature"), 10),
    tour, step: tour ? int(q.get("step"), 1, TOURS[tour].steps.length, 1) : 1,
    d_model: oneOf(q.get("d_model"), D_MODELS, DEFAULTS.d_model), heads,
    causal: q.get("causal") === null ? DEFAULTS.causal : q.get("causal") !== "0",
    temperature: temperature(q.get("temperature")),
    seed: int(q.get("seed"), 0, 2 ** 32 - 1, DEFAULTS.seed),
  };
  // A tour's step is its state (any change of the student's own leaves the tour).
  return tour ? tourState(state, tour, state.step) : state;
}

/** Keep the state inside what the source can show: a head the illustrative chain has, a layer and
 * head the model has (`limits` from GET /api/model). */
export function clamp(state, limits = MODEL_LIMITS) {
  const s = { ...state };
  if (s.heads > s.d_model) s.heads = DEFAULTS.heads;
  if (s.source === "model") {
    s.layer = Math.min(s.layer, limits.layers - 1);
    s.head = Math.min(s.head, limits.heads - 1);
  } else {
    s.head = Math.min(s.head, s.heads - 1);
  }
  return s;
}

/** The query string of a state: text, source, then the settings the source uses (the map, and any
 * setting that differs from its default). */
export function serialize(state) {
  const q = new URLSearchParams();
  q.set("text", state.text);
  q.set("source", state.source);
  if (state.source === "model") q.set("layer", String(state.layer));
  q.set("head", String(state.head));
  if (state.map !== DEFAULTS.map) q.set("map", state.map);
  if (state.source === "illustrative") {
    for (const key of ["d_model", "heads", "temperature", "seed"]) {
      if (state[key] !== DEFAULTS[key]) q.set(key, String(state[key]));
    }
    if (!state.causal) q.set("causal", "0");
  }
  if (state.source === "model" && state.next_temperature !== DEFAULTS.next_temperature) {
    q.set("next_temperature", String(state.next_temperature));
  }
  if (state.tour) {
    q.set("tour", state.tour);
    q.set("step", String(state.step));
  }
  return `?${q.toString()}`;
}

/** Two states draw the same thing. */
export function same(a, b) {
  return serialize(a) === serialize(b);
}

/** The request that computes a state: [url, body]. The illustrative chain asks /api/attention for
 * every head's three maps; the model one head in full and every head as a small map. */
export function request(state) {
  if (state.source === "model") {
    return ["/api/model/lab", { text: state.text, layer: state.layer, head: state.head, digits: 4, grid: 16,
      next_temperature: state.next_temperature }];
  }
  return ["/api/attention", { text: state.text, d_model: state.d_model, heads: state.heads, causal: state.causal,
    temperature: state.temperature, seed: state.seed, digits: 4, numbers: "scaled",
    include: ["scores", "masked", "weights"] }];
}

/** The request for one cell's derivation. */
export function cellRequest(state, tensor, row, col) {
  if (state.source === "model") {
    return ["/api/model/derivation", { text: state.text, layer: state.layer, head: state.head, tensor, row, col }];
  }
  const [, body] = request(state);
  delete body.include;
  delete body.digits;
  return ["/api/attention/derivation", { ...body, head: state.head, tensor, row, col }];
}
