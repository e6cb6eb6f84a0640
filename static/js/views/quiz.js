// A question step's panel (frames/quiz.py): asking (big buttons, a grid of cells, items tapped in
// order, a slider), the reveal (the answer, right or wrong, how far off, the derivation: every
// figure as the engine sent it) and a room's spread of answers (how many picked what, never which
// is right). Only DOM; the controller (controllers/quiz.js) says what to show.
import { element } from "../lib/element.js";

/** A pick as words: the token, "row r, column c", the order, the slider's value. */
export function pickText(q, pick) {
  if (!pick) return "";
  if (q.kind === "token") return q.choices[pick[0]] ?? "";
  if (q.kind === "cell") return `row ${q.choices[pick[0]]}, column ${q.cols[pick[1]]}`;
  if (q.kind === "order") return pick.map((i) => q.choices[i]).join(" › ");
  return q.marks[pick[0]] ?? "";
}

const same = (a, b) => Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]);

function button(parent, text, className, onClick, attrs = {}) {
  const b = element("button", { className: `quiz-button ${className}`, text, attrs: { type: "button", ...attrs } }, parent);
  b.addEventListener("click", (e) => { e.currentTarget.blur(); onClick(); });
  return b;
}

/** Ask `q`; `pick` is the guess so far (null: none). on.pick(pick) on every change, on.answer(pick)
 * to commit, on.skip(). A token or a cell commits on its tap; an order or a slider with Answer.
 * `onStage`: the choices are on the drawing (views/quiz-stage.js), not buttons here. */
export function renderAsk(panel, q, pick, on, { locked = false, note = "", onStage = false } = {}) {
  panel.replaceChildren();
  panel.dataset.mode = "ask";
  panel.dataset.kind = q.kind;
  element("p", { className: "quiz-kicker", text: "Guess first" }, panel);
  element("h2", { className: "quiz-prompt", text: q.prompt, attrs: { id: "quiz-prompt" } }, panel);
  const body = element("div", { className: `quiz-body quiz-${q.kind}` }, panel);
  if (onStage) body.hidden = true;
  else if (q.kind === "token") askToken(body, q, pick, on, locked);
  else if (q.kind === "cell") askCell(body, q, pick, on, locked);
  else if (q.kind === "order") askOrder(body, q, pick, on, locked);
  else askEstimate(body, q, pick, on, locked);
  const row = element("div", { className: "quiz-actions" }, panel);
  if (q.kind === "order" || q.kind === "estimate") {
    const ready = q.kind === "estimate" || (pick && pick.length === q.choices.length);
    const b = button(row, "Answer", "quiz-answer", () => on.answer(pick ?? [Math.floor(q.marks.length / 2)]));
    b.disabled = locked || !ready;
  }
  if (on.skip) button(row, "Skip", "quiz-skip", () => on.skip());
  element("p", { className: "quiz-note", text: note, attrs: { role: "status" } }, panel);
}

function askToken(body, q, pick, on, locked) {
  q.choices.forEach((label, i) => {
    const b = button(body, label, "quiz-choice", () => on.answer([i]), { "aria-pressed": String(same(pick, [i])) });
    b.disabled = locked;
  });
}

function askCell(body, q, pick, on, locked) {
  body.style.setProperty("--quiz-cols", String(q.cols.length));
  element("span", { className: "quiz-corner" }, body);
  for (const c of q.cols) element("span", { className: "quiz-col-label", text: c }, body);
  q.choices.forEach((r, i) => {
    element("span", { className: "quiz-row-label", text: r }, body);
    q.cols.forEach((c, j) => {
      const b = button(body, "", "quiz-cell", () => on.answer([i, j]),
        { "aria-label": `row ${r}, column ${c}`, "aria-pressed": String(same(pick, [i, j])) });
      b.disabled = locked;
    });
  });
}

function askOrder(body, q, pick, on, locked) {
  const order = pick ?? [];
  element("p", { className: "quiz-hint", text: "Tap the items from largest to smallest" }, body);
  q.choices.forEach((label, i) => {
    const at = order.indexOf(i);
    const b = button(body, at >= 0 ? `${at + 1}. ${label}` : label, "quiz-choice",
      () => on.pick(at >= 0 ? order.slice(0, at) : [...order, i]), { "aria-pressed": String(at >= 0) });
    b.disabled = locked;
  });
}

function askEstimate(body, q, pick, on, locked) {
  const k = pick ? pick[0] : Math.floor(q.marks.length / 2);
  const value = element("output", { className: "quiz-value", text: q.marks[k] }, body);
  const slider = element("input", { className: "quiz-slider", attrs: { type: "range", min: 0, max: q.marks.length - 1,
    step: 1, value: k, "aria-label": q.prompt, "aria-valuetext": q.marks[k] } }, body);
  slider.disabled = locked;
  slider.addEventListener("input", () => {
    const at = Number(slider.value);
    value.textContent = q.marks[at];
    slider.setAttribute("aria-valuetext", q.marks[at]);
    on.pick([at], { quiet: true });
  });
}

/** The answer, with the guess (null: skipped) and how far it was off. */
export function renderReveal(panel, reveal, guess) {
  const q = reveal.question;
  panel.replaceChildren();
  panel.dataset.mode = "reveal";
  const right = guess ? same(guess, reveal.answer) : null;
  panel.dataset.right = right === null ? "skipped" : String(right);
  panel.dataset.kind = q.kind;
  element("p", { className: "quiz-kicker", text: "The answer" }, panel);
  element("h2", { className: "quiz-prompt", text: q.prompt }, panel);
  element("p", { className: "quiz-answer-text", text: reveal.text, attrs: { id: "quiz-answer" } }, panel);
  const verdict = right === null ? "You skipped this one." : right ? "Right." : "Not quite.";
  element("p", { className: "quiz-verdict", text: verdict, attrs: { id: "quiz-verdict" } }, panel);
  // On a stage (rooms.css) the derivation opens above the bar on "Why"; elsewhere it is listed.
  const docked = panel.classList.contains("quiz-docked");
  const why = button(panel, "Why?", "quiz-why", () => {
    list.hidden = !list.hidden;
    why.setAttribute("aria-expanded", String(!list.hidden));
  }, { "aria-expanded": "false", "aria-controls": "quiz-derivation" });
  if (guess && !right) element("p", { className: "quiz-off", text: offBy(reveal, guess), attrs: { id: "quiz-off" } }, panel);
  const list = element("div", { className: "quiz-derivation", attrs: { id: "quiz-derivation" } }, panel);
  list.hidden = docked;
  element("p", { className: "quiz-derivation-prompt", text: q.prompt }, list);
  const lines = element("ul", { attrs: { "aria-label": "Where the answer comes from" } }, list);
  for (const line of reveal.derivation) element("li", { text: line }, lines);
}

/** How far off a guess is, in the engine's figures. */
export function offBy(reveal, guess) {
  const q = reveal.question;
  const f = reveal.figures;
  if (q.kind === "token") return `You picked ${q.choices[guess[0]]} (${f[0][guess[0]]}); ${reveal.text} has ${f[0][reveal.answer[0]]}.`;
  if (q.kind === "cell") {
    const [r, c] = reveal.answer;
    return `Your cell holds ${f[guess[0]][guess[1]]}; the largest holds ${f[r][c]}.`;
  }
  if (q.kind === "order") {
    const placed = guess.filter((x, i) => x === reveal.answer[i]).length;
    return `You ordered ${pickText(q, guess)}: ${placed} of ${guess.length} in their place.`;
  }
  return `You said ${q.marks[guess[0]]}: off by ${f[0][guess[0]]}.`;
}

/** A room's spread: how many answered, and a bar per pick (the most picked first for an order). */
export function renderTally(box, q, tally) {
  box.replaceChildren();
  const n = tally.answered;
  element("p", { className: "quiz-count", text: `${n} ${n === 1 ? "answer" : "answers"}`, attrs: { id: "quiz-count" } }, box);
  const counts = tally.counts ?? {};
  let keys;
  if (q.kind === "token") keys = q.choices.map((_, i) => String(i));
  else if (q.kind === "estimate") keys = q.marks.map((_, i) => String(i));
  else keys = Object.keys(counts).sort((a, b) => counts[b] - counts[a]).slice(0, 6);
  const most = Math.max(1, ...keys.map((k) => counts[k] ?? 0));
  const bars = element("div", { className: `quiz-spread quiz-spread-${q.kind}`, attrs: { role: "list" } }, box);
  for (const k of keys) {
    const count = counts[k] ?? 0;
    const label = pickText(q, k.split(",").map(Number));
    const item = element("div", { className: "quiz-bar", attrs: { role: "listitem", "aria-label": `${label}: ${count}` } }, bars);
    if (q.kind !== "estimate") element("span", { className: "quiz-bar-label", text: label }, item);
    const fill = element("span", { className: "quiz-bar-fill" }, item);
    fill.style.setProperty("--quiz-share", String(count / most));
    if (q.kind !== "estimate") element("span", { className: "quiz-bar-count", text: String(count) }, item);
  }
  if (q.kind === "estimate") {
    const ends = element("p", { className: "quiz-ends" }, box);
    element("span", { text: q.marks[0] }, ends);
    element("span", { text: q.marks[q.marks.length - 1] }, ends);
  }
}
