// Every layer × head of the real model as a small map (POST /api/model/lab's compact `grid`: one
// byte per block, round(255 × the block's largest weight)), to spot patterns at a glance: rows are
// layers, columns the nine query heads in their three key/value groups. One map at a time takes the
// keyboard focus: arrows move, Home/End go to a row's ends, Enter (or a click) opens that head.

function rgb(colour) {
  const hex = colour.trim().replace("#", "");
  if (!/^[0-9a-f]{6}$/i.test(hex)) return [106, 168, 255];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
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
    this.contexts = [];
    this.shape = "";
    this.current = [0, 0];
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
    this.contexts = []; // every map's 2D context, layer by layer, head by head
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
        const canvas = document.createElement("canvas");
        b.append(canvas);
        this.contexts.push(canvas.getContext("2d"));
        row.append(b);
        buttons.push(b);
      }
      this.cells.push(buttons);
      this.box.append(row);
    }
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
      this.rgb = rgb(getComputedStyle(this.box).getPropertyValue("--weights"));
    }
    return this.rgb;
  }

  /** Draw the answer's grid; `current` = [layer, head] is marked and takes the focus stop. Every map
   * is one colour at its blocks' alphas: written as whole pixels into one image, reused. */
  render(grid, kvHeads, current) {
    const shape = `${grid.layers}x${grid.heads}`;
    if (shape !== this.shape) this.build(grid.layers, grid.heads, kvHeads);
    this.shape = shape;
    const bytes = decode(grid.data);
    const m = grid.cells;
    const [r, g, b] = this.colour();
    if (this.image?.width !== m) this.image = new ImageData(m, m);
    const pixels = new Uint32Array(this.image.data.buffer);
    const rgbBits = little ? (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8);
    const alphaShift = little ? 24 : 0;
    let at = 0;
    for (const ctx of this.contexts) {
      const canvas = ctx.canvas;
      if (canvas.width !== m) { canvas.width = m; canvas.height = m; }
      for (let k = 0; k < m * m; k++) {
        pixels[k] = (rgbBits | (bytes[at + k] << alphaShift)) >>> 0;
      }
      at += m * m;
      ctx.putImageData(this.image, 0, 0);
    }
    this.mark(current);
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
