// The light/dark toggle and the language switcher's closing.
// The page follows the system's colour scheme until the reader chooses the other one: the choice is kept in
// localStorage ("pipeline-theme") and set on <html data-theme> by base.html's first script before anything is
// drawn. Choosing the system's scheme again forgets the choice, so the page follows the system again.
(function () {
  "use strict";
  var KEY = "pipeline-theme";
  var root = document.documentElement;
  var system = window.matchMedia("(prefers-color-scheme: dark)");

  function isDark() {
    var chosen = root.getAttribute("data-theme");
    return chosen ? chosen === "dark" : system.matches;
  }

  function show() {
    document.querySelectorAll(".theme-toggle").forEach(function (button) {
      button.setAttribute("aria-pressed", isDark() ? "true" : "false");
    });
  }

  function remember(value) {
    try {
      if (value) localStorage.setItem(KEY, value);
      else localStorage.removeItem(KEY);
    } catch (e) { /* storage refused (a private window): the choice lasts this page */ }
  }

  function choose(dark) {
    var value = dark === system.matches ? null : dark ? "dark" : "light";
    if (value) root.setAttribute("data-theme", value);
    else root.removeAttribute("data-theme");
    remember(value);
    show();
  }

  document.querySelectorAll(".theme-toggle").forEach(function (button) {
    button.addEventListener("click", function () { choose(!isDark()); });
  });
  system.addEventListener("change", show);
  window.addEventListener("storage", function (event) {  // chosen in another tab of the site
    if (event.key !== KEY) return;
    if (event.newValue === "dark" || event.newValue === "light") root.setAttribute("data-theme", event.newValue);
    else root.removeAttribute("data-theme");
    show();
  });
  show();

  // An open language switcher (a <details>) closes on Escape and on a click elsewhere.
  function closeSwitchers(except) {
    document.querySelectorAll("details.language-switcher[open]").forEach(function (details) {
      if (details !== except) details.removeAttribute("open");
    });
  }
  document.addEventListener("click", function (event) {
    closeSwitchers(event.target.closest ? event.target.closest("details.language-switcher") : null);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var open = document.querySelector("details.language-switcher[open]");
    if (!open) return;
    closeSwitchers(null);
    open.querySelector("summary").focus();
  });
})();
