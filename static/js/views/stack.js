// The model as a stack of blocks (tokens in, next token out); zoomed, the first block opens to
// show attention and the feed-forward part reading from and adding to the residual stream.
import { count } from "../lib/format.js";
import { arrowDefs, label, surface, svg } from "./dom.js";
import { registerWidget } from "./widgets.js";

function box(parent, x, y, w, h, text, cls = "") {
  const g = svg("g", { class: `diagram-box ${cls}` }, parent);
  svg("rect", { x, y, width: w, height: h, rx: 10 }, g);
  label(g, text, { x: x + w / 2, y: y + h / 2, "text-anchor": "middle", "dominant-baseline": "central" });
  return g;
}

/** A block as its two parts, attention first, then its feed-forward part: dense or experts (MoE). */
function block(parent, x, y, w, h, b, cls, dense) {
  const g = svg("g", { class: `diagram-box stack-block ${cls}` }, parent);
  svg("rect", { x, y, width: w, height: h, rx: 10 }, g);
  label(g, `block ${b}`, { x: x + 20, y: y + h / 2, "dominant-baseline": "central" });
  const inset = 7, partH = h - 2 * inset, a = { x: x + 180, w: 220 }, f = { x: x + 410, w: w - 410 - inset };
  for (const [part, text, kind] of [[a, "attention", "scores"], [f, dense ? "dense FFN" : "MoE", "neutral"]]) {
    const p = svg("g", { class: `stack-part kind-${kind}` }, g);
    svg("rect", { x: part.x, y: y + inset, width: part.w, height: partH, rx: 7 }, p);
    label(p, text, { x: part.x + part.w / 2, y: y + h / 2, "text-anchor": "middle", "dominant-baseline": "central" });
  }
  return g;
}

function arrow(parent, x1, y1, x2, y2, cls = "") {
  svg("line", { class: `diagram-arrow ${cls}`, x1, y1, x2, y2, "marker-end": "url(#arrowhead)" }, parent);
}

function render(el, w) {
  const { layers, d_model, tokens, zoom, dense_layers } = w.data;
  const W = w.box.w, H = w.box.h;
  const root = surface(el, W, H);
  root.replaceChildren();
  arrowDefs(root);
  const stack = svg("g", { class: `stack${zoom ? " zoomed" : ""}` }, root);
  const colW = 640, sx = zoom ? 30 : (W - colW) / 2; // wide enough for the embedding's line at TYPE.label
  label(stack, `“${tokens.join(" ")}”`, { class: "diagram-small", x: sx + colW / 2, y: H - 10, "text-anchor": "middle" });
  // The embeddings are the input table X of the next slides: it travels there (views/continuity.js).
  box(stack, sx, H - 100, colW, 56, `embedding: each token → ${count(d_model)} numbers`, "input").dataset.identity = "X";
  const shown = [1, 2, 3, null, layers];
  // The blocks and the guess share the height above the embedding, so the stack reaches the top.
  const slot = (H - 100 - 10) / (shown.length + 1), blockH = Math.min(70, slot - 16), gap = slot - blockH;
  let y = H - 100 - gap - blockH;
  const blockY = {};
  for (const b of shown) {
    if (b === null) {
      label(stack, "⋮", { class: "diagram-big", x: sx + colW / 2, y: y + blockH / 2 + 8, "text-anchor": "middle" });
    } else {
      const cls = b === 1 && zoom ? "opened" : "block"; // not "active": see talk.css
      if (dense_layers === undefined || dense_layers === null) box(stack, sx, y, colW, blockH, `block ${b}`, cls);
      else block(stack, sx, y, colW, blockH, b, cls, b <= dense_layers);
      blockY[b] = y;
    }
    y -= blockH + gap;
  }
  box(stack, sx, y, colW, blockH, "next-token guess", "output");
  arrow(stack, sx + colW / 2, H - 100, sx + colW / 2, H - 100 - gap + 2);
  label(stack, `× ${layers} blocks`, { class: "diagram-note", x: zoom ? sx + colW / 2 + 40 : sx + colW + 18,
    y: (blockY[3] + blockY[layers]) / 2 + blockH / 2, "dominant-baseline": "central" });
  if (!zoom) return;
  // The inside of block 1: the residual stream with two readers that add back.
  const px = sx + colW + 70, pw = W - px - 20, py = 20, ph = H - 40;
  svg("path", { class: "zoom-link", d: `M ${sx + colW} ${blockY[1]} L ${px} ${py} M ${sx + colW} ${blockY[1] + blockH} L ${px} ${py + ph}` }, root);
  const panel = svg("g", { class: "zoom-panel" }, root);
  svg("rect", { class: "panel-bg", x: px, y: py, width: pw, height: ph, rx: 16 }, panel);
  label(panel, "block 1", { class: "diagram-title", x: px + 24, y: py + 40 });
  const streamX = px + 150;
  svg("line", { class: "stream", x1: streamX, y1: py + ph - 30, x2: streamX, y2: py + 70 }, panel);
  label(panel, "residual stream", { class: "diagram-small", x: streamX - 16, y: py + ph - 40, "text-anchor": "end" });
  const parts = [
    { name: "attention", y: py + ph - 230, cls: "attention", note: "tokens exchange information" },
    { name: "feed-forward", y: py + 110, cls: "ffn", note: "each token on its own" },
  ];
  for (const p of parts) {
    const bx = streamX + 130, bw = 340, bh = 90;
    box(panel, bx, p.y, bw, bh, p.name, p.cls);
    svg("path", { class: "diagram-arrow", d: `M ${streamX} ${p.y + bh + 40} L ${streamX + 60} ${p.y + bh + 40} L ${streamX + 60} ${p.y + bh / 2} L ${bx} ${p.y + bh / 2}`, "marker-end": "url(#arrowhead)", fill: "none" }, panel);
    svg("path", { class: "diagram-arrow", d: `M ${bx + bw} ${p.y + bh / 2} L ${bx + bw + 40} ${p.y + bh / 2} L ${bx + bw + 40} ${p.y - 30} L ${streamX + 22} ${p.y - 30}`, "marker-end": "url(#arrowhead)", fill: "none" }, panel);
    const plus = svg("g", { class: "plus" }, panel);
    svg("circle", { cx: streamX, cy: p.y - 30, r: 20 }, plus);
    label(plus, "+", { x: streamX, y: p.y - 30, "text-anchor": "middle", "dominant-baseline": "central" });
    label(panel, p.note, { class: "diagram-small", x: bx + bw / 2, y: p.y + bh + 30, "text-anchor": "middle" });
  }
}

registerWidget("stack", render);
