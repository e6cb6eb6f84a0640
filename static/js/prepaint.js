// Runs on every page before the first paint (a classic script in <head>, not inline: the CSP
// forbids inline scripts). It marks the page as scripted (html.js) so the stage replaces the plain
// document, applies the chosen or system colour scheme, and sets the stage size's CSS custom
// properties from <html data-stage-w data-stage-h> (the one source; see lib/stage-size.js).
(function () {
  const root = document.documentElement;
  root.classList.add("js");
  const w = root.dataset.stageW, h = root.dataset.stageH;
  if (w && h) {
    root.style.setProperty("--stage-w", `${w}px`);
    root.style.setProperty("--stage-h", `${h}px`);
    root.style.setProperty("--stage-aspect", `${w} / ${h}`);
  }
  try {
    const theme = localStorage.getItem("attention-talk-theme");
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
    else if (window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches) {
      root.setAttribute("data-theme", "light");
    }
  } catch (e) { /* storage may be disabled; keep the default theme */ }
})();
