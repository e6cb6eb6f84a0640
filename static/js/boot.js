// Runs before first paint (a classic script, not inline: the CSP forbids inline scripts).
// Marks the page as scripted so the stage replaces the plain document, and applies the theme.
(function () {
  var root = document.documentElement;
  root.classList.add("js");
  try {
    var theme = localStorage.getItem("attention-talk-theme");
    if (theme === "light" || theme === "dark") root.setAttribute("data-theme", theme);
    else if (window.matchMedia && window.matchMedia("(prefers-color-scheme: light)").matches) {
      root.setAttribute("data-theme", "light");
    }
  } catch (e) { /* storage may be disabled; keep the default theme */ }
})();
