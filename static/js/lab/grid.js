// Every layer × head of the real model as a small map (POST /api/model/lab's compact `grid`: one
// byte per block, round(255 × the block's largest weight)), to spot patterns at a glance: rows are
// layers, columns the nine query heads in their three key/value groups. One map at a time takes the
// keyboard focus: arrows move, Home/End go to a row's ends, Enter (or a click) opens that head.
//
// The maps are buttons (focus, click, name, the current mark), and one canvas laid over the whole
// grid paints every map inside its button: a canvas element per map would be 270 layers for the
// compositor, and each keystroke's answer would have the browser layerize and commit them all
// (about 25 ms a keystroke, measured with benchmarks/lab.py). Where each map sits is read when the
// grid is laid out (a resize observer: after layout, before paint), never while drawing an answer.

/** [r, g, b] of a CSS colour (colours.css --weights), however it is written: a canvas normalises it. */
function channels(colour) {
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.fillStyle = colour.trim();
  const hex = ctx.fillStyle.replace("#", "");
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) || 0);
}

function decode(base64) {
  const raw = atob(base64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

// ImageData's bytes are R, G, B, A in memory; a Uint32 over them reads them in the machine's order.
const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class GridView {
  /** `onOpen(layer, head)` opens a head in the map and head views. */
  constructor(box, onOpen) {
    this.box = box;
    this.onOpen = onOpen;
    this.cells = []; // [layer][head] → button
    this.shape = "";
    this.current = [0, 0];
    this.strip = null; // the answer's maps, one under the other, m px a side each (never in the page)
    this.places = null; // each map's box on the canvas, in CSS px, layer by layer, head by head
    this.watch = new ResizeObserver(() => { this.places = this.measure(); this.paint(); });
    box.addEventListener("click", (e) => {
      const b = e.target.closest?.(".grid-map");
      if (b) this.onOpen(Number(b.dataset.layer), Number(b.dataset.head));
    });
    box.addEventListener("keydown", (e) => this.key(e));
  }

  build(layers, heads, kvHeads) {
    const per = heads / kvHeads;
    this.box.replaceChildren();
    this.box.style.setProperty("--heads", String(heads));
    const header = document.createElement("div");
    header.className = "grid-row grid-head";
    header.setAttribute("role", "row");
    header.append(this.headerCell("layer"));
    for (let h = 0; h < heads; h++) {
      const cell = this.headerCell(`${h}`);
      cell.title = `head ${h} (K/V head ${Math.floor(h / per)})`;
      if (h % per === 0 && h > 0) cell.classList.add("group-start");
      header.append(cell);
    }
    this.box.append(header);
    this.cells = [];
    for (let layer = 0; layer < layers; layer++) {
      const row = document.createElement("div");
      row.className = "grid-row";
      row.setAttribute("role", "row");
      const th = this.headerCell(String(layer));
      th.setAttribute("role", "rowheader");
      row.append(th);
      const buttons = [];
      for (let h = 0; h < heads; h++) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = `grid-map${h % per === 0 && h > 0 ? " group-start" : ""}`;
        Object.assign(b.dataset, { layer: String(layer), head: String(h) });
        b.setAttribute("role", "gridcell");
        b.tabIndex = -1;
        b.setAttribute("aria-label", `layer ${layer}, head ${h} (K/V head ${Math.floor(h / per)})`);
        row.append(b);
        buttons.push(b);
      }
      this.cells.push(buttons);
      this.box.append(row);
    }
    this.canvas = document.createElement("canvas");
    this.canvas.className = "grid-canvas";
    this.canvas.setAttribute("aria-hidden", "true");
    this.box.append(this.canvas);
    this.places = null;
    this.watch.disconnect();
    // Each fires once the grid is laid out, then whenever a map's size or the grid's changes.
    this.watch.observe(this.box);
    this.watch.observe(this.cells[0][0]);
  }

  /** Every map's inner box (inside its border) relative to the canvas, which sits at the grid's
   * scrolled origin; and the canvas's size. Read after layout: reading costs nothing then. */
  measure() {
    const box = this.box.getBoundingClientRect();
    const x0 = box.left + this.box.clientLeft - this.box.scrollLeft;
    const y0 = box.top + this.box.clientTop - this.box.scrollTop;
    const places = [];
    for (const row of this.cells) {
      for (const b of row) {
        const r = b.getBoundingClientRect();
        places.push([r.left - x0 + b.clientLeft, r.top - y0 + b.clientTop, b.clientWidth, b.clientHeight]);
      }
    }
    return { places, width: this.box.scrollWidth, height: this.box.scrollHeight };
  }

  headerCell(text) {
    const s = document.createElement("span");
    s.className = "grid-label";
    s.setAttribute("role", "columnheader");
    s.textContent = text;
    return s;
  }

  /** The weights' colour of the current theme, read once per theme (a style read after the lab's
   * other views were written would make the browser compute the page's style there and then). */
  colour() {
    const theme = document.documentElement.dataset.theme ?? "";
    if (this.colourFor !== theme) {
      this.colourFor = theme;
      this.rgb = channels(getComputedStyle(this.box).getPropertyValue("--weights"));
    }
    return this.rgb;
  }

  /** Draw the answer's grid; `current` = [layer, head] is marked and takes the focus stop. Every map
   * is one colour at its blocks' alphas: written as whole pixels into one strip image, then each
   * map is scaled into its button's box on the one canvas (block by block, no smoothing). */
  render(grid, kvHeads, current) {
    const shape = `${grid.layers}x${grid.heads}`;
    if (shape !== this.shape) this.build(grid.layers, grid.heads, kvHeads);
    this.shape = shape;
    this.fill(decode(grid.data), grid.cells, grid.layers * grid.heads);
    this.paint(); // not laid out yet (a new grid, a hidden view): the resize observer paints it
    this.mark(current);
  }

  /** Write the answer's `count` maps (m × m bytes each) into the strip, once per answer. */
  fill(bytes, m, count) {
    const [r, g, b] = this.colour();
    if (this.image?.width !== m || this.image.height !== m * count) {
      this.image = new ImageData(m, m * count);
      this.strip = document.createElement("canvas"); // never in the page: no layer of its own
      Object.assign(this.strip, { width: m, height: m * count });
    }
    const pixels = new Uint32Array(this.image.data.buffer);
    const rgbBits = little ? (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8);
    const alphaShift = little ? 24 : 0;
    const n = Math.min(pixels.length, bytes.length);
    for (let k = 0; k < n; k++) pixels[k] = (rgbBits | (bytes[k] << alphaShift)) >>> 0;
    this.strip.getContext("2d").putImageData(this.image, 0, 0);
  }

  /** Scale each map of the strip into its button's box (again whenever the grid is laid out anew). */
  paint() {
    if (!this.strip || !this.places || !this.places.width) return;
    const m = this.strip.width;
    const { places, width, height } = this.places;
    const scale = window.devicePixelRatio || 1;
    const canvas = this.canvas;
    const w = Math.round(width * scale), h = Math.round(height * scale);
    if (canvas.width !== w || canvas.height !== h) {
      Object.assign(canvas, { width: w, height: h });
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.imageSmoothingEnabled = false;
    places.forEach(([x, y, pw, ph], i) => {
      ctx.save();
      ctx.beginPath();
      ctx.roundRect(x, y, pw, ph, 3);
      ctx.clip();
      ctx.drawImage(this.strip, 0, i * m, m, m, x, y, pw, ph);
      ctx.restore();
    });
  }

  mark([layer, head]) {
    const [ol, oh] = this.current;
    const old = this.cells[ol]?.[oh];
    if (old) { old.classList.remove("current"); old.removeAttribute("aria-current"); old.tabIndex = -1; }
    this.current = [layer, head];
    const b = this.cells[layer]?.[head];
    if (b) { b.classList.add("current"); b.setAttribute("aria-current", "true"); b.tabIndex = 0; }
  }

  key(e) {
    const b = e.target.closest?.(".grid-map");
    if (!b) return;
    const layer = Number(b.dataset.layer), head = Number(b.dataset.head);
    const L = this.cells.length, H = this.cells[0].length;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      Home: [0, -H], End: [0, H], PageUp: [-5, 0], PageDown: [5, 0] };
    if (!moves[e.key]) return; // Enter and Space click the button
    e.preventDefault();
    const [dl, dh] = moves[e.key];
    const nl = Math.max(0, Math.min(L - 1, layer + dl)), nh = Math.max(0, Math.min(H - 1, head + dh));
    b.tabIndex = -1;
    const next = this.cells[nl][nh];
    next.tabIndex = 0;
    next.focus();
  }
}
