// The search: Pagefind's UI in an overlay (the header's <dialog id="search-dialog">), opened by the header's search
// button, by "/" or Ctrl-K (⌘K), or by `?q=words` in the address (opened with those words). It searches the shards
// of this page's language (pagefind/shards.js lists them), the first as its own bundle and the others merged into
// it (results of all, ordered by score). The arrow keys move between the field and the results, Enter in the field
// opens the first result, Escape or a click outside closes the overlay.
window.addEventListener("DOMContentLoaded", function () {
  "use strict";
  var dialog = document.getElementById("search-dialog");
  var shards = window.pipelineSearchShards;
  if (typeof PagefindUI === "undefined" || !dialog || !shards) return;
  var langs = Object.keys(shards);
  var own = shards[document.documentElement.lang] || shards[langs[0]];
  var script = document.querySelector('script[src*="pagefind/pagefind-ui.js"]');
  if (!own || !own.length || !script) return;
  var root = new URL(script.src).pathname.replace(/pagefind-ui\.js$/, "");  // the search folder, whatever the base URL
  var site = root.replace(/pagefind\/$/, "");
  var words = document.getElementById("ui-strings");
  var ui = new PagefindUI({
    element: "#search", showSubResults: true, showImages: false, bundlePath: root + own[0], baseUrl: site,
    mergeIndex: own.slice(1).map(function (folder) { return { bundlePath: root + folder, baseUrl: site }; }),
    translations: words ? JSON.parse(words.textContent).search : {}
  });

  function field() {
    return dialog.querySelector(".pagefind-ui__search-input");
  }
  // Pagefind names its field by a `title` alone, which is no label to assistive technology (axe: label-title-only).
  if (field()) field().setAttribute("aria-label", dialog.getAttribute("aria-label"));

  function open(query) {
    if (!dialog.open) dialog.showModal();
    if (query) ui.triggerSearch(query);
    var input = field();
    if (input) {
      input.focus();
      input.select();
    }
  }

  // The field, each result and sub-result link, and "load more", in page order: what the arrow keys move through.
  function stops() {
    return Array.prototype.slice.call(dialog.querySelectorAll(
      ".pagefind-ui__search-input, .pagefind-ui__result-link, .pagefind-ui__button"));
  }

  dialog.addEventListener("keydown", function (event) {
    var all = stops();
    var at = all.indexOf(document.activeElement);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      var next = all[at + (event.key === "ArrowDown" ? 1 : -1)];
      if (at < 0 || !next) return;
      event.preventDefault();
      next.focus();
    } else if (event.key === "Enter" && document.activeElement === field() && all[1]) {
      event.preventDefault();
      all[1].click();
    }
  });
  dialog.addEventListener("click", function (event) {
    if (event.target === dialog) dialog.close();  // the backdrop: the dialog's own box, outside its content
  });
  dialog.querySelector(".search-close").addEventListener("click", function () { dialog.close(); });
  document.querySelectorAll(".search-button").forEach(function (button) {
    button.addEventListener("click", function () { open(); });
  });
  document.addEventListener("keydown", function (event) {
    if (dialog.open || event.altKey) return;
    var target = event.target;
    var typing = target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
    var slash = event.key === "/" && !typing && !event.ctrlKey && !event.metaKey;
    var ctrlK = (event.key === "k" || event.key === "K") && (event.ctrlKey || event.metaKey);
    if (slash || ctrlK) {
      event.preventDefault();
      open();
    }
  });
  var query = new URLSearchParams(window.location.search).get("q");
  if (query) open(query);
});
