// The guided tours: each a few steps, each step a state of the lab (the sentence, the real model's
// layer and head, the map) and what to look at in it (a row, a column or a cell of the map, found by
// its tokens in the answer), said in one sentence. The layers and heads are where the pattern shows
// on SmolLM2-135M; the sentences are inputs. No number is written here: the map, its readout and the
// head view show the model's own.

const SENTENCES = {
  ambiguous: "She walked along the river and sat down on the bank",
  induction: "Listen: violin seven purple tunnel marble lemon orbit kettle violin seven purple tunnel marble lemon orbit kettle",
  sink: "When the evening train finally pulled into the small mountain station, the tired travellers gathered " +
    "their bags, thanked the conductor and walked slowly towards the warm lights of the village inn.",
};

/** The index of the `nth` (1-based; -1 the last) occurrence of `token` in `tokens`, or -1. */
export function find(tokens, token, nth = 1) {
  const at = tokens.flatMap((t, i) => (t === token ? [i] : []));
  return (nth < 0 ? at[at.length + nth] : at[nth - 1]) ?? -1;
}

const last = (tokens) => tokens.length - 1;

export const TOURS = {
  ambiguous: {
    name: "An ambiguous word",
    steps: [
      { layer: 9, head: 2, map: "weights", look: (t) => ({ row: find(t, " bank", -1) }),
        say: "Each row is one token reading the tokens before it; the last row is “bank”." },
      { layer: 9, head: 2, map: "weights", look: (t) => ({ row: find(t, " bank", -1), col: find(t, " river") }),
        say: "In layer 9, head 2, “bank” gives most of its attention to “river”: the word that says which bank." },
      { layer: 9, head: 2, map: "scores", look: (t) => ({ row: find(t, " bank", -1), col: find(t, " river") }),
        say: "That weight starts as this score, q(bank)·k(river): press Enter on the map to see its sum." },
    ],
  },
  induction: {
    name: "Copying a repeat",
    steps: [
      { layer: 18, head: 6, map: "weights", look: (t) => ({ row: find(t, " seven", 2) }),
        say: "Eight random words, twice: nothing predicts the first run, but the second can be copied." },
      { layer: 18, head: 6, map: "weights", look: (t) => ({ row: find(t, " seven", 2), col: find(t, " purple") }),
        say: "Layer 18, head 6: at the second “seven” it reads “purple”, the word that came after the first." },
      { layer: 17, head: 4, map: "weights", look: (t) => ({ row: find(t, " seven", 2), col: find(t, " purple") }),
        say: "Layer 17, head 4 copies too: the stripe beside the diagonal is an induction head at work." },
    ],
  },
  sink: {
    name: "The first-token sink",
    steps: [
      { layer: 18, head: 8, map: "weights", look: () => ({ col: 0 }),
        say: "In layer 18, head 8, nearly every token puts nearly all its weight on the first token." },
      { layer: 18, head: 7, map: "weights", look: (t) => ({ row: last(t), col: 0 }),
        say: "Its neighbour, head 7, does the same: even the last token reads “When” and little else." },
      { layer: 23, head: 2, map: "weights", look: () => ({ col: 0 }),
        say: "A head with nothing to find parks its attention on the first token: a sink, in many layers." },
    ],
  },
};

export const TOUR_NAMES = Object.keys(TOURS);

/** The lab state of step `step` (1-based) of tour `name`, from the state `from` (its other settings kept). */
export function tourState(from, name, step) {
  const s = TOURS[name].steps[step - 1];
  return { ...from, text: SENTENCES[name], source: "model", layer: s.layer, head: s.head, map: s.map,
    tour: name, step };
}

/** What step `step` of tour `name` points at in an answer's `tokens`: {row?, col?} (indices). */
export function lookAt(name, step, tokens) {
  const spot = TOURS[name].steps[step - 1].look(tokens);
  return Object.fromEntries(Object.entries(spot).filter(([, i]) => i >= 0));
}
