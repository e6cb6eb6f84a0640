"""Contrast of every visible text on the stage against what is really behind it, in the browser:
the text's colour (with fill-opacity and every ancestor's opacity) composited over the stack of
painted layers under its centre (SVG shapes' fills, HTML backgrounds, down to the page)."""

from stage_probe import SEEN_TEXTS

CONTRAST = r"""() => {
  const force = document.createElement('style');
  force.textContent = '* { pointer-events: auto !important; }';
  document.head.appendChild(force);
  const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const chain = (el) => { let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o; };
  const over = (top, a, bottom) => top.map((v, i) => v * a + bottom[i] * (1 - a));
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const SHAPES = new Set(['rect', 'circle', 'ellipse', 'path', 'polygon']);
  const pageBg = parse(getComputedStyle(document.body).backgroundColor);
  const layerOf = (e) => {
    const cs = getComputedStyle(e);
    if (e instanceof SVGElement) {
      if (!SHAPES.has(e.tagName)) return null;
      const c = parse(cs.fill); if (!c) return null;
      return [c, c[3] * parseFloat(cs.fillOpacity) * chain(e)];
    }
    if (cs.backgroundImage.includes('gradient')) return [pageBg, chain(e)];
    const c = parse(cs.backgroundColor); if (!c || c[3] === 0) return null;
    return [c, c[3] * chain(e)];
  };
  const out = [];
  for (const [n, el, r] of (SEEN_TEXTS)()) {
    const t = n.textContent.trim(), alpha = chain(el);
    if (r.right < 0 || r.bottom < 0 || r.left > innerWidth || r.top > innerHeight) continue;
    const cs = getComputedStyle(el);
    const fgc = parse(el instanceof SVGElement ? cs.fill : cs.color); if (!fgc) continue;
    const fa = fgc[3] * (el instanceof SVGElement ? parseFloat(cs.fillOpacity) : 1) * alpha;
    const stack = document.elementsFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const layers = [];
    for (const e of stack) {
      if (e === el || (e.contains(el) && !(e instanceof HTMLElement))) continue;
      const l = layerOf(e); if (!l) continue;
      layers.push(l);
      if (l[1] >= 0.999) break;
    }
    let bg = pageBg.slice(0, 3);
    for (const [c, a] of layers.reverse()) bg = over(c.slice(0, 3), a, bg);
    const fg = over(fgc.slice(0, 3), fa, bg);
    const dimmed = Boolean(el.closest('.dim, .pipe-stage:not(.active)'));
    out.push({ text: t.slice(0, 24), ratio: Math.round(ratio(fg, bg) * 100) / 100, need: dimmed ? 3 : 4.5,
      where: el.closest('[data-tensor]')?.dataset.tensor || el.closest('[data-widget]')?.dataset.widget
        || el.closest('[data-note]')?.dataset.note || el.className.baseVal || el.className || el.tagName });
  }
  force.remove();
  return out.filter((x) => x.ratio < x.need);
}""".replace("(SEEN_TEXTS)", f"({SEEN_TEXTS})")

# The strongest cell of every matrix on the active slide (the largest weight, the largest |score|:
# views/matrix.js gives it --f = 1): its tint composited over the page stands ≥ 3:1 against the
# page (docs/colours.md), in the theme shown. A largest cell that is masked or dimmed (a row out of
# focus, stepping back on purpose) is left out. Returns the ones under 3:1.
STRONGEST = r"""() => {
  const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
    return m[1].split(/[ ,\/]+/).filter(Boolean).map(Number).slice(0, 3); };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const bg = parse(getComputedStyle(document.body).backgroundColor);
  const out = [];
  for (const g of document.querySelectorAll('.slide.active .tensor')) {
    let best = null;
    for (const cell of g.querySelectorAll('.cell:not(.masked):not(.dim)')) {
      if (parseFloat(cell.style.getPropertyValue('--f')) < 0.9995) continue;
      const cs = getComputedStyle(cell.querySelector('rect'));
      const a = parseFloat(cs.fillOpacity), c = parse(cs.fill);
      if (c && (!best || a > best.a)) best = { a, c, text: cell.textContent };
    }
    if (!best) continue;
    const mixed = best.c.map((v, i) => v * best.a + bg[i] * (1 - best.a));
    const r = Math.round(ratio(mixed, bg) * 100) / 100;
    if (r < 3) out.push({ tensor: g.dataset.tensor, cell: best.text, ratio: r });
  }
  return out;
}"""
