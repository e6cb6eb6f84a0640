// The overview's grid: one button per slide with a thumbnail and its title. A thumbnail is a copy
// of the slide's own shell (inert); the overview controller draws a frame into it.

function thumbnail(slide, slidesFrom) {
  const thumb = document.createElement("div");
  thumb.className = "thumb";
  thumb.setAttribute("aria-hidden", "true");
  const stage = document.createElement("div");
  stage.className = "thumb-stage";
  const original = slidesFrom.querySelector(`[data-slide-id="${CSS.escape(slide.id)}"]`);
  let copy = null;
  if (original) {
    copy = original.cloneNode(true);
    copy.removeAttribute("id");
    copy.classList.add("active");
    copy.inert = true;
    stage.appendChild(copy);
  }
  thumb.appendChild(stage);
  return { thumb, copy };
}

function item(slide, n, thumb) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "overview-item";
  button.dataset.slide = String(n);
  const title = document.createElement("span");
  title.className = "thumb-title";
  const num = document.createElement("span");
  num.className = "thumb-number";
  num.textContent = String(n);
  title.append(num, document.createTextNode(` ${slide.title}`));  // its name: "3 Queries"
  button.append(thumb, title);
  return button;
}

/** Fill `panel` with the grid; returns each slide's button and its thumbnail's slide copy (or null). */
export function buildOverview(panel, slides, slidesFrom) {
  const list = document.createElement("ol");
  list.className = "overview-grid";
  const items = slides.map((slide, i) => {
    const { thumb, copy } = thumbnail(slide, slidesFrom);
    const button = item(slide, i + 1, thumb);
    const li = document.createElement("li");
    li.appendChild(button);
    list.appendChild(li);
    return { button, copy };
  });
  const hint = document.createElement("p");
  hint.className = "overview-hint";
  hint.textContent = "Overview · arrows move · Enter goes there · Esc or O returns";
  panel.append(hint, list);
  return items;
}

/** Mark the slide being shown (`current`, 1-based) and the one selected with the arrows. */
export function markOverview(buttons, { current = null, selected = null }) {
  for (const button of buttons) {
    const n = Number(button.dataset.slide);
    if (current !== null) {
      button.classList.toggle("current", n === current);
      if (n === current) button.setAttribute("aria-current", "step");
      else button.removeAttribute("aria-current");
    }
    if (selected !== null) button.classList.toggle("selected", n === selected);
  }
}
