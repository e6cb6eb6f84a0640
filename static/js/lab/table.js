// Tokens as text, and a map as a real <table> (the map's alternative for screen readers and for
// reading the numbers): every string goes in with textContent, never as markup.
import { number } from "../lib/format.js";

/** A token as text on one line: a newline, tab or return drawn as ↵, ⇥, ␍. */
export function shown(token) { return token.replace(/\n/g, "↵").replace(/\t/g, "⇥").replace(/\r/g, "␍"); }

export function quoted(token) { return `“${shown(token)}”`; }

function header(text, scope) {
  const th = document.createElement("th");
  th.scope = scope;
  th.textContent = shown(text);
  return th;
}

/** {tokens, values, label} as a table: a row per query token, a column per key token. */
export function mapTable({ tokens, values, label }) {
  const table = document.createElement("table");
  table.className = "lab-table";
  table.createCaption().textContent = `${label}: row = the query token, column = the key token`;
  table.createTHead().insertRow().append(document.createElement("td"), ...tokens.map((t) => header(t, "col")));
  const body = table.createTBody();
  values.forEach((row, r) => {
    const tr = body.insertRow();
    tr.append(header(tokens[r], "row"));
    for (const v of row) tr.insertCell().textContent = number(v, 3);
  });
  return table;
}
