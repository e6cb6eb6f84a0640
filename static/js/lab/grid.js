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

export class GridView {
  /** `onOpen(layer, head)` opens a head in the map and head views. */
  constructor(box, onOpen) {
    this.box = box;
    this.onOpen = onOpen;
    this.cells = []; // [layer][head] → button
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
        b.append(document.createElement("canvas"));
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

  /** Draw the answer's grid; `current` = [layer, head] is marked and takes the focus stop. */
  render(grid, kvHeads, current) {
    const shape = `${grid.layers}x${grid.heads}`;
    if (shape !== this.shape) this.build(grid.layers, grid.heads, kvHeads);
    this.shape = shape;
    const bytes = decode(grid.data);
    const m = grid.cells;
    const [r, g, b] = rgb(getComputedStyle(this.box).getPropertyValue("--weights"));
    let at = 0;
    for (const row of this.cells) {
      for (const button of row) {
        const canvas = button.firstChild;
        if (canvas.width !== m) { canvas.width = m; canvas.height = m; }
        const image = new ImageData(m, m);
        const px = image.data;
        for (let k = 0; k < m * m; k++) {
          px[4 * k] = r; px[4 * k + 1] = g; px[4 * k + 2] = b; px[4 * k + 3] = bytes[at + k];
        }
        at += m * m;
        canvas.getContext("2d").putImageData(image, 0, 0);
      }
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
