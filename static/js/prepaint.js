// Runs on every page before the first paint (a classic script in <head>, not inline: the CSP
// forbids inline scripts). It marks the page as scripted (html.js) so the stage replaces the plain
// document, applies the chosen or system colour scheme, and sets the stage size's CSS custom
// properties from <html data-stage-w data-stage-h> (the one source; see lib/stage-size.js).
// On the talk page it also preloads the first slide's widget views (data-first-views, from
// web/modules.py first_views) when the page opens on that slide: the hash is the browser's alone,
// and a step opened by its link on another slide must not fetch them before it is drawn.
(function () {
  const root = document.documentElement;
  const views = document.currentScript && document.currentScript.dataset.firstViews;
  const linked = /^#\/(\d+)(?:\/\d+)?\/?$/.exec(location.hash);  // as controllers/location.js parseHash
  if (views && (!linked || Number(linked[1]) === 1)) {
    for (const href of views.split(" ")) {
      const link = document.createElement("link");
      link.rel = "modulepreload";
      link.href = href;
      document.head.append(link);
    }
  }
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
