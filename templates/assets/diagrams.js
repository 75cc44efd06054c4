// Mermaid diagrams (`<pre class="mermaid">`), drawn by the copy of Mermaid the theme ships, in the page's
// colour scheme: the one the page chose (`data-theme` on <html>), else the system's.
(function () {
  if (typeof mermaid === "undefined") return;
  var chosen = document.documentElement.getAttribute("data-theme");
  var dark = chosen ? chosen === "dark" : window.matchMedia("(prefers-color-scheme: dark)").matches;
  // "strict": labels are text, never HTML, and no click runs a script (a diagram is page content).
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default" });
  mermaid.run({ querySelector: "pre.mermaid" });
})();
