// "flash": FlashAttention's sweep (engine.flash_attend through frames/kit/flash.py, which computes
// every number and its derivation; nothing is computed here). Left, the n × n score map split into
// tiles: the tile being computed shows its scores, done tiles keep no numbers (the map is never
// stored), a tile above the diagonal is hatched "never computed". Right, on each query row's line:
// its running max m and sum ℓ as bars, and its output row Z. Stage "done": Z beside the pipeline's Z.
// Motion shows cause, in three phases: the sweep frame travels to the new tile (its scores appear),
// then each of its rows' m grows to the new max and the old ℓ shrinks by e^(m_before − m) (a dashed
// outline keeps the old length), then the tile's own sum is added to ℓ and Z takes its new value.
// Reduced motion: no motion, the same end state. Every number is a button: it shows its derivation
// on the line under the drawing.
import { TYPE } from "../lib/type.js";
import { number } from "../lib/format.js";
import { label, reducedMotion, surface, svg } from "./dom.js";
import { maskHatch } from "./hatch.js";
import { boxAt, focusable, hatch, leave, morph, PHASE, previousStage, unitRect } from "./morph.js";
import { rovingLine, setRoving } from "./roving.js";
import { registerWidget } from "./widgets.js";

// Stage units. TOP: room for the slanted key labels and the column headings; STRIP: the line under
// the drawing (a tile's story, or the derivation of the number clicked).
const TOP = 120, STRIP = 80, LEFT = 112, CELL_W = 92, GAP = 20, BAR_M = 90, BAR_L = 150, ZW = 92, VALUE_W = 80;

function geometry(d, W, H) {
  const ch = Math.min(70, (H - TOP - STRIP) / d.n), mapRight = LEFT + d.n * CELL_W;
  const mX = mapRight + GAP, lX = mX + BAR_M + VALUE_W + GAP, zX = W - 3 * ZW;
  const all = d.tiles.flatMap((t) => [...t.m, ...t.l_before, ...t.l]);
  const ms = d.tiles.flatMap((t) => t.m), mLo = Math.min(0, ...ms), mHi = Math.max(...ms, 1e-9);
  return { W, H, ch, mapRight, mX, lX, zX, pX: mX, strip: H - 26, mk: BAR_M / (mHi - mLo), m0: mX - mLo * BAR_M / (mHi - mLo),
    lk: BAR_L / Math.max(...all, 1e-9), barH: Math.min(30, ch * 0.5) };
}

const rowY = (g, r) => TOP + r * g.ch;
const tileBox = (g, t) => ({ x: LEFT + t.cols[0] * CELL_W, y: rowY(g, t.rows[0]), w: (t.cols[1] - t.cols[0]) * CELL_W,
  h: (t.rows[1] - t.rows[0]) * g.ch });
const key = (d) => `${d.stage ?? "tile"}:${d.current}`;

/** The step a drawing moves from when it drew nothing before: the step before it in the sweep. */
function predecessor(d) {
  const stage = d.stage ?? "tile";
  if (stage === "done") return { stage: "tile", current: d.tiles.length - 1 };
  if (stage === "skip") return { stage: "tile", current: d.current };
  return d.current > 0 ? { stage: "tile", current: d.current - 1 } : { stage: "start", current: -1 };
}

function parseKey(k) {
  const [stage, current] = k.split(":");
  return { stage, current: Number(current) };
}

/** Each row's running state after tile `upto` (null before any tile covers it), `fresh` if the tile is `upto`. */
function rowsAfter(d, upto) {
  const rows = d.tokens.map(() => null);
  d.tiles.slice(0, upto + 1).forEach((t, k) => {
    for (let r = t.rows[0]; r < t.rows[1]; r++) rows[r] = { t, i: r - t.rows[0], fresh: k === upto };
  });
  return rows;
}

/** The state of every moving element at a step {stage, current}. */
function stateAt(d, g, { stage, current }) {
  const done = stage === "done", tiling = stage === "tile";
  const rows = stage === "start" ? d.tokens.map(() => null) : rowsAfter(d, current);
  const cur = d.tiles[current], skip = d.skipped?.[0];
  const frameTile = stage === "skip" && skip ? skip : cur ?? d.tiles[0];
  const fb = tileBox(g, frameTile);
  const tiles = d.tiles.map((t, k) => ({ cls: done || k < current || (stage === "skip" && k === current) ? "done"
    : k === current && tiling ? "current" : "todo" }));
  const row = rows.map((st, r) => {
    const y = rowY(g, r) + (g.ch - g.barH) / 2;
    if (!st) return { m: 0, mb: null, kept: 0, added: 0, lb: null, o: null, y, fresh: false };
    const { t, i } = st, fresh = st.fresh && tiling;
    return { m: t.m[i], mb: fresh ? t.m_before[i] : null, kept: fresh ? t.kept[i] : t.l[i], added: fresh ? t.added[i] : 0,
      l: t.l[i], lb: fresh && t.l_before[i] > 0 ? t.l_before[i] : null, o: t.o[i], y, fresh, t, i };
  });
  // A skipped tile shows once the sweep has passed it: it comes after the tiles left of it or above it.
  const passed = (sk) => d.tiles.filter((t) => t.cols[0] < sk.cols[0] || (t.cols[0] === sk.cols[0] && t.rows[0] < sk.rows[0])).length;
  const skips = (d.skipped || []).map((sk) => ({ opacity: done || stage === "skip" || current >= passed(sk) ? 1 : 0 }));
  return { stage, current, tiles, row, skips, frame: { transform: boxAt(fb.x, fb.y, fb.w, fb.h),
    opacity: stage === "start" || done ? 0 : 1 }, skipLook: stage === "skip", columns: { opacity: done ? 0 : 1 },
  pipeline: { transform: `translate(${done ? 0 : -60}px, 0px)`, opacity: done ? 1 : 0 } };
}

function text(parent, content, attrs, size, cls) {
  const t = label(parent, content, { class: cls, ...attrs });
  t.style.fontSize = `${size}px`;
  return t;
}

/** The map's still parts: token labels, the cells, the block lines, the skipped tiles' hatching. */
function drawMap(root, d, g) {
  d.tokens.forEach((tok, r) => {
    text(root, tok, { x: LEFT - 12, y: rowY(g, r) + g.ch / 2, "text-anchor": "end", "dominant-baseline": "central" },
      TYPE.label, "flash-axis");
    const cx = LEFT + (r + 0.5) * CELL_W;
    text(root, tok, { x: cx, y: TOP - 14, transform: `rotate(-40 ${cx} ${TOP - 14})` }, TYPE.label, "flash-axis");
  });
  for (let r = 0; r < d.n; r++) for (let c = 0; c < d.n; c++) {
    svg("rect", { class: "flash-cell", x: LEFT + c * CELL_W, y: rowY(g, r), width: CELL_W, height: g.ch }, root);
  }
  return (d.skipped || []).map((s) => {
    const b = tileBox(g, s), grp = svg("g", { class: "flash-skip" }, root);
    svg("rect", { class: "flash-skip-bg", x: b.x, y: b.y, width: b.w, height: b.h }, grp);
    hatch(grp, b.x, b.y, b.w, b.h);
    ["never", "computed"].forEach((w, k) => text(grp, w, { x: b.x + b.w / 2, y: b.y + b.h / 2 + (k - 0.5) * 34,
      "text-anchor": "middle", "dominant-baseline": "central" }, TYPE.label, "flash-skip-label"));
    return grp;
  });
}

/** The right-hand columns' still parts: headings, zero lines, the Z cells' frames. */
function drawColumns(root, d, g) {
  const cols = svg("g", { class: "flash-columns" }, root);
  for (const [x, name] of [[g.mX, "max m"], [g.lX, "sum ℓ"]]) {
    text(cols, "running", { x, y: TOP - 58 }, TYPE.label, "flash-head");
    text(cols, name, { x, y: TOP - 24 }, TYPE.label, "flash-head");
  }
  svg("line", { class: "flash-zero", x1: g.m0, x2: g.m0, y1: TOP, y2: rowY(g, d.n) }, cols);
  svg("line", { class: "flash-zero", x1: g.lX, x2: g.lX, y1: TOP, y2: rowY(g, d.n) }, cols);
  const pipe = svg("g", { class: "flash-pipeline" }, root);
  text(pipe, "the pipeline's", { x: g.pX, y: TOP - 58 }, TYPE.label, "flash-head");
  text(pipe, "Z = A·V", { x: g.pX, y: TOP - 24 }, TYPE.label, "flash-head output");
  text(root, d.stage === "done" ? "from the tiles" : "output row", { x: g.zX, y: TOP - 58 }, TYPE.label, "flash-head");
  text(root, "Z", { x: g.zX, y: TOP - 24 }, TYPE.label, "flash-head output");
  for (let r = 0; r < d.n; r++) for (let c = 0; c < 3; c++) {
    svg("rect", { class: "flash-zcell", x: g.zX + c * ZW, y: rowY(g, r) + 3, width: ZW - 4, height: g.ch - 6, rx: 4 }, root);
    svg("rect", { class: "flash-zcell", x: g.pX + c * ZW, y: rowY(g, r) + 3, width: ZW - 4, height: g.ch - 6, rx: 4 }, pipe);
  }
  d.tokens.forEach((_, r) => text(pipe, "=", { x: (g.pX + 3 * ZW + g.zX) / 2, y: rowY(g, r) + g.ch / 2,
    "text-anchor": "middle", "dominant-baseline": "central" }, TYPE.label, "flash-eq"));
  return { cols, pipe };
}

/** A number that is a button: clicked (or Enter / Space) it shows `why` on the strip. */
function button(t, name, why, strip, nums) {
  focusable(t, `${name}: ${t.textContent}`);
  t.setAttribute("role", "button");
  t.dataset.why = why;
  const show = () => {
    for (const n of nums) n.classList.toggle("picked", n === t);
    strip.textContent = why;
  };
  t.addEventListener("click", show);
  t.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(); } });
  nums.push(t);
  return t;
}

/** A number that changes between steps: moved, or cross-faded (the old one leaves) after `delay`. */
function changing(root, was, now, attrs, delay, cls = "flash-num") {
  const t = text(root, now, { ...attrs, "text-anchor": attrs["text-anchor"] ?? "middle", "dominant-baseline": "central" },
    TYPE.dense, cls);
  if (was !== undefined && was !== now) {
    if (was !== null) leave(text(root, was, { ...attrs, "text-anchor": attrs["text-anchor"] ?? "middle",
      "dominant-baseline": "central" }, TYPE.dense, cls), { opacity: 1 }, { opacity: 0 }, { delay, duration: PHASE / 2 });
    morph(t, { opacity: 0 }, { opacity: 1 }, { delay: delay + PHASE / 2, duration: PHASE / 2 });
  } else place(t);
  return t;
}

const place = (t) => morph(t, null, { opacity: 1 });

function drawScores(root, d, g, cur, was, strip, nums) {
  if (cur.s.some((row) => row.includes(null))) maskHatch();
  cur.s.forEach((row, i) => row.forEach((v, j) => {
    const x = LEFT + (cur.cols[0] + j) * CELL_W, y = rowY(g, cur.rows[0] + i);
    if (v === null) svg("rect", { class: "flash-masked", x: x + 4, y: y + 4, width: CELL_W - 8, height: g.ch - 8, rx: 4 }, root);
    const t = text(root, number(v, 2), { x: x + CELL_W / 2, y: y + g.ch / 2, "text-anchor": "middle",
      "dominant-baseline": "central" }, TYPE.dense, `flash-num flash-s${v === null ? " masked" : ""}`);
    button(t, `score ${d.tokens[cur.rows[0] + i]} → ${d.tokens[cur.cols[0] + j]}`, cur.why_s[i][j], strip, nums);
    morph(t, was ? { opacity: 0 } : null, { opacity: 1 }, { delay: PHASE });
  }));
}

function drawRows(root, zRoot, d, g, now, was, strip, nums) {
  const anim = Boolean(was), live = now.stage !== "done";  // at the end m and ℓ fade: not buttons
  now.row.forEach((st, r) => {
    const w = was?.row[r], y = st.y, h = g.barH, name = d.tokens[r];
    // m: a bar from zero; the old max as a dashed outline while the new one is larger.
    if (st.mb !== null && st.mb !== undefined && st.mb !== st.m) {
      unitRect(root, { class: "flash-before" }).style.transform = boxAt(g.m0, y, st.mb * g.mk, h);
    }
    const mBar = unitRect(root, { class: "flash-bar m" });
    morph(mBar, anim ? { transform: boxAt(g.m0, y, w.m * g.mk, h) } : null, { transform: boxAt(g.m0, y, st.m * g.mk, h) },
      { delay: PHASE });
    // ℓ: the old sum (rescaled: it shrinks), then the tile's own sum added after it.
    if (st.lb !== null) unitRect(root, { class: "flash-before" }).style.transform = boxAt(g.lX, y, st.lb * g.lk, h);
    const kept = unitRect(root, { class: "flash-bar l" }), added = unitRect(root, { class: "flash-bar l added" });
    const wasTotal = anim ? (w.kept + w.added) * g.lk : 0;
    morph(kept, anim ? { transform: boxAt(g.lX, y, wasTotal, h) } : null, { transform: boxAt(g.lX, y, st.kept * g.lk, h) },
      { delay: PHASE });
    const addTo = boxAt(g.lX + st.kept * g.lk, y, st.added * g.lk, h);
    morph(added, anim ? { transform: boxAt(g.lX + st.kept * g.lk, y, 0.001, h) } : null, { transform: addTo },
      { delay: 2 * PHASE });
    if (!st.t) return;
    const cy = rowY(g, r) + g.ch / 2;
    const mText = changing(root, anim ? (w.t ? number(w.m, 3) : null) : undefined, number(st.m, 3),
      { x: g.m0 + Math.max(0, st.m * g.mk) + 10, y: cy, "text-anchor": "start" }, PHASE);
    if (live) button(mText, `${name}: running max m`, st.t.why_m[st.i], strip, nums);
    const lText = changing(root, anim ? (w.t ? number(w.l, 3) : null) : undefined, number(st.l, 3),
      { x: g.lX + st.l * g.lk + 10, y: cy, "text-anchor": "start" }, 2 * PHASE);
    if (live) button(lText, `${name}: running sum ℓ`, st.t.why_l[st.i], strip, nums);
    st.o.forEach((v, c) => {
      const z = changing(zRoot, anim ? (w.o ? number(w.o[c], 2) : null) : undefined, number(v, 2),
        { x: g.zX + c * ZW + (ZW - 4) / 2, y: cy }, 2 * PHASE, "flash-num output");
      button(z, `${name}: Z coordinate ${c + 1}`, st.t.why_o[st.i][c], strip, nums);
    });
  });
}

function render(el, widget) {
  const d = widget.data, W = widget.box.w, H = widget.box.h;
  const prevKey = previousStage(el, JSON.stringify([d.tokens, d.block, d.tiles.length]), key(d));
  el.replaceChildren();
  const g = geometry(d, W, H), root = surface(el, W, H);
  root.classList.add("flash");
  root.setAttribute("role", "group");
  const stage = d.stage ?? (d.final ? "done" : d.show_skip ? "skip" : "tile");
  root.setAttribute("aria-label", stage === "done" ? "FlashAttention: every tile done, Z beside the pipeline's Z"
    : stage === "skip" ? "FlashAttention: the tile above the diagonal is never computed"
      : `FlashAttention: tile ${d.current + 1} of ${d.tiles.length}`);
  const now = stateAt(d, g, { stage, current: d.current });
  const from = reducedMotion(el) ? null : prevKey ? parseKey(prevKey) : predecessor(d);
  const was = from ? stateAt(d, g, from) : null;
  const skips = drawMap(root, d, g);
  skips.forEach((grp, k) => {
    morph(grp, was?.skips[k], now.skips[k], { delay: PHASE / 2 });
    grp.classList.toggle("current", now.skipLook);
  });
  const tiles = d.tiles.map((t, k) => {
    const b = tileBox(g, t);
    return svg("rect", { class: `flash-tile ${now.tiles[k].cls}`, x: b.x, y: b.y, width: b.w, height: b.h }, root);
  });
  // The tile being computed lights up as the sweep frame lands on it.
  tiles.forEach((t, k) => {
    const lights = was && now.tiles[k].cls === "current" && was.tiles[k].cls !== "current";
    morph(t, lights ? { opacity: 0 } : null, { opacity: 1 }, { delay: PHASE / 2, duration: PHASE / 2 });
  });
  const strip = text(root, "", { x: 0, y: g.strip }, TYPE.dense, "flash-strip");
  const nums = [];
  const { cols, pipe } = drawColumns(root, d, g);
  morph(cols, was?.columns, now.columns);
  morph(pipe, was?.pipeline, now.pipeline, { delay: PHASE / 2 });
  if (stage === "tile") drawScores(root, d, g, d.tiles[d.current], was, strip, nums);
  if (was && was.stage === "tile" && (stage !== "tile" || was.current !== now.current)) {
    const old = d.tiles[was.current];
    old.s.forEach((row, i) => row.forEach((v, j) => leave(text(root, number(v, 2), {
      x: LEFT + (old.cols[0] + j + 0.5) * CELL_W, y: rowY(g, old.rows[0] + i) + g.ch / 2, "text-anchor": "middle",
      "dominant-baseline": "central" }, TYPE.dense, "flash-num flash-s"), { opacity: 1 }, { opacity: 0 }, { duration: PHASE })));
  }
  const frame = unitRect(root, { class: `flash-frame${now.skipLook ? " skip" : ""}`, "data-identity": "flash-frame" });
  morph(frame, was?.frame, now.frame);
  drawRows(cols, root, d, g, now, was, strip, nums);
  if (stage === "done") cols.setAttribute("aria-hidden", "true"); else pipe.setAttribute("aria-hidden", "true");
  if (stage === "done") {
    d.exact.forEach((row, r) => row.forEach((v, c) => {
      const t = text(pipe, number(v, 2), { x: g.pX + c * ZW + (ZW - 4) / 2, y: rowY(g, r) + g.ch / 2,
        "text-anchor": "middle", "dominant-baseline": "central" }, TYPE.dense, "flash-num output");
      button(t, `${d.tokens[r]}: pipeline's Z coordinate ${c + 1}`, d.exact_why[r][c], strip, nums);
    }));
  }
  strip.textContent = stage === "done" ? d.done_story : stage === "skip" ? d.skip_story : d.tiles[d.current].story;
  root.appendChild(strip);
  setRoving(nums, 0);
  rovingLine(root, () => nums);
}

registerWidget("flash", (el, widget) => render(el, widget));
