// How the player writes a number, following the Python rules of attention_talk.formatting (which
// formats everything the frames already carry as text); tests/test_formatting.py checks both sides
// on one table of values and on random floats.
//   - a real minus sign (U+2212), never a hyphen; no negative zero ("−0.00" is written "0.00");
//   - null (a masked score, JSON's stand-in for −∞) and −Infinity are "−∞", +Infinity is "∞";
//   - ties round away from zero on the number's exact binary value (toFixed does exactly that);
//   - counts get thousands separators and keep up to 3 decimals.

const MINUS = "\u2212";
const NEG_INF = `${MINUS}∞`;

/** |x| with exactly `digits` decimals; toFixed switches to exponents at 1e21, BigInt does not. */
function fixed(abs, digits) {
  if (abs < 1e21) return abs.toFixed(digits);
  const whole = BigInt(abs).toString(); // |x| ≥ 1e21 is a whole number
  return digits > 0 ? `${whole}.${"0".repeat(digits)}` : whole;
}

function signed(x, text) {
  return x < 0 && /[1-9]/.test(text) ? MINUS + text : text;
}

/** `x` with exactly `digits` decimals: −0.004 → "0.00", −1.5 → "−1.50", null → "−∞". */
export function number(x, digits = 2) {
  if (x === null) return NEG_INF;
  const v = Number(x);
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "∞" : NEG_INF;
  return signed(v, fixed(Math.abs(v), digits));
}

function grouped(digits) {
  return digits.replace(/\B(?=(\d{3})+$)/g, ",");
}

/** 1234567 → "1,234,567"; a non-integer keeps up to 3 decimals (2.5 → "2.5", 0.1235 → "0.124"). */
export function count(x) {
  const v = Number(x);
  if (!Number.isFinite(v)) return number(v);
  const [whole, decimals] = fixed(Math.abs(v), 3).split(".");
  const frac = decimals.replace(/0+$/, "");
  return signed(v, frac ? `${grouped(whole)}.${frac}` : grouped(whole));
}

/** A short vector in brackets: [0.10, −0.20]. */
export function vector(values, digits = 2) {
  return `[${values.map((v) => number(v, digits)).join(", ")}]`;
}

/** Tensor dimensions: 7 × 7,168. */
export function shape(dims) {
  return dims.map(count).join(" × ");
}

/** The dimensions a tensor's window draws: on an axis whose window runs from the first index to the
 * last (its elided runs drawn as … or ⋮) the full size, else the number of indices shown (one row
 * of a map is 1 × n, a crop its own size). Arguments: the full shape and each axis's shown indices. */
export function drawnShape(dims, ...windows) {
  return dims.map((n, a) => {
    const w = windows[a];
    return !w || w.length === n || (w[0] === 0 && w[w.length - 1] === n - 1) ? n : w.length;
  });
}

/** A size in bytes, in decimal units with three significant digits: 917,504 → "918 kB". */
export function bytes(b) {
  const units = ["bytes", "kB", "MB", "GB", "TB", "PB"];
  let v = Number(b), u = 0;
  while (u < units.length - 1 && Number(Math.abs(v).toPrecision(3)) >= 1000) { v /= 1000; u++; }
  return u === 0 ? `${count(b)} bytes` : `${signed(v, Math.abs(v).toPrecision(3))} ${units[u]}`;
}
