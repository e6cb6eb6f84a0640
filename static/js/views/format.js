// Number formatting shared by every view: a real minus sign, −∞ for masked cells, no "−0.00".
export function formatNumber(value, digits = 2) {
  if (value === null) return "−∞";
  const s = Number(value).toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return s.replace("-", "−");
}

export function formatCount(value) {
  return Number(value).toLocaleString("en-US");
}

export const SVG_NS = "http://www.w3.org/2000/svg";

export function svg(tag, attrs = {}, parent = null) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

export const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;
