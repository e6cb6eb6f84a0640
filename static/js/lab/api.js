// Talking to the server without ever letting an old answer win. Every request gets a sequence
// number; an answer is handed on only if no newer answer was handed on before it. The illustrative
// chain is cheap, so a newer request aborts the one in flight (AbortController); the real model
// runs one text at a time on the server and cannot be stopped there, so at most one of its requests
// is in flight and only the newest waiting one follows it (typing fast never queues stale runs).
import { readJson } from "../lib/fetch-json.js";

/** POST `body` as JSON; resolves to {ok, status, body} (lib/fetch-json.js: an answer that is not JSON,
 * an HTML error page, is not ok and its body's message says so). Rejects only when aborted or offline. */
export async function postJson(url, body, signal) {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body), signal });
  return readJson(res);
}

/** POST /api/attention writes its tensors' numbers as integers in units of 10^-digits
 * (`numbers: "scaled"`): the same body with them as numbers again (null, a masked −∞, stays null).
 * Any other body is returned as it is. */
export function decodeNumbers(body) {
  if (body?.numbers !== "scaled") return body;
  const unit = 10 ** body.digits;
  const matrix = (m) => m.map((row) => row.map((x) => (x === null ? null : x / unit)));
  const decoded = (obj, names) => Object.fromEntries(Object.entries(obj).map(([name, value]) => [name,
    names.includes(name) && Array.isArray(value) ? matrix(value) : value]));
  const perHead = ["q", "k", "v", "scores", "masked", "weights", "output"];
  return { ...decoded(body, ["concat", "output"]), numbers: "decimal",
    per_head: body.per_head.map((head) => decoded(head, perHead)) };
}

export async function getJson(url) {
  return readJson(await fetch(url));
}

export class Latest {
  /** `onAnswer(answer, job)` gets each answer that is newer than every answer before it. */
  constructor(onAnswer, { post = postJson } = {}) {
    this.onAnswer = onAnswer;
    this.post = post;
    this.seq = 0;
    this.shown = 0; // the sequence number of the last answer handed on
    this.inFlight = null; // {job, controller}
    this.waiting = null; // the newest job not sent yet (model source)
    this.timer = null;
  }

  /** Ask for `job` = {url, body, serial, state} after `delay` ms; `serial` jobs wait their turn. */
  ask(job, delay = 0) {
    clearTimeout(this.timer);
    job.seq = ++this.seq;
    if (delay > 0) this.timer = setTimeout(() => this.send(job), delay);
    else this.send(job);
    return job.seq;
  }

  /** Forget everything in flight or waiting (its answers will be ignored). */
  cancel() {
    clearTimeout(this.timer);
    this.waiting = null;
    this.seq++;
    if (this.inFlight && !this.inFlight.job.serial) this.inFlight.controller.abort();
  }

  get busy() { return Boolean(this.inFlight || this.waiting); }

  send(job) {
    if (this.inFlight) {
      if (this.inFlight.job.serial && job.serial) { this.waiting = job; return; }
      if (!this.inFlight.job.serial) this.inFlight.controller.abort();
    }
    const controller = new AbortController();
    const flight = { job, controller };
    this.inFlight = flight;
    this.post(job.url, job.body, controller.signal)
      .then((answer) => { if (job.seq > this.shown && job.seq === this.seq) this.hand(job, answer); })
      .catch((err) => { if (err.name !== "AbortError" && job.seq === this.seq) this.hand(job, offline(err)); })
      .finally(() => {
        if (this.inFlight === flight) this.inFlight = null;
        const next = this.waiting;
        this.waiting = null;
        if (next && next.seq === this.seq) this.send(next);
      });
  }

  hand(job, answer) {
    this.shown = job.seq;
    this.onAnswer(answer, job);
  }
}

function offline(err) {
  return { ok: false, status: 0, body: { message: `the server did not answer (${err.message})` } };
}
