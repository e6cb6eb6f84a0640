// One HTML element with a class, text (always through textContent) and attributes, appended to a
// parent when given: how the room controllers build their small bits of page.
export function element(tag, { className = "", text = null, attrs = {} } = {}, parent = null) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== null) el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}
