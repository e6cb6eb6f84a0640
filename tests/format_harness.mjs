// Runs the player's number formatter (static/js/lib/format.js) on a batch of calls read from stdin and
// writes the results to stdout, for tests/test_formatting.py: one node process per test.
//   stdin:  [[name, [arg, ...]], ...]  a number is a string (Python's repr, "Infinity", "NaN") or null
//                                      (a masked score), so that −0, ±∞ and NaN survive JSON; an arg
//                                      may be a list of numbers (vector, shape)
//   stdout: [result, ...]
import * as format from "../static/js/lib/format.js";

const decode = (a) => (Array.isArray(a) ? a.map(decode) : typeof a === "string" ? Number(a) : a);
const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const calls = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const out = calls.map(([name, args]) => format[name](...args.map(decode)));
process.stdout.write(JSON.stringify(out));
